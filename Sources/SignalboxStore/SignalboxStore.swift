// SignalboxStore
