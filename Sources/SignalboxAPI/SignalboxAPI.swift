// SignalboxAPI
