print("make-captures")
