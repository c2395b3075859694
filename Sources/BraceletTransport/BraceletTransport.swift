// BraceletTransport: placeholder until its layer lands.
