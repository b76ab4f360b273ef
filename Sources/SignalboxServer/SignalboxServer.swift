// SignalboxServer
