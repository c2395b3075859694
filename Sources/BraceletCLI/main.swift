print("bracelet")
