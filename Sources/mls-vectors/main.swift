print("mls-vectors")
