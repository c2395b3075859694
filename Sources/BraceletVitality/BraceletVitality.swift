// BraceletVitality: placeholder until its layer lands.
