// BraceletStore: placeholder until its layer lands.
