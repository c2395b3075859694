// BraceletSync: placeholder until its layer lands.
