print("signalbox")
