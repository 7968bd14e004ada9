print("catbird-mls-server")
