// BraceletSummaries: placeholder until its layer lands.
