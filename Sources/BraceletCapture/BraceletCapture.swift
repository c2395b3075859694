// BraceletCapture: placeholder until its layer lands.
