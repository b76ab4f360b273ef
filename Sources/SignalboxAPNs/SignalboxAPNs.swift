// SignalboxAPNs
