// BraceletSimulator: placeholder until its layer lands.
