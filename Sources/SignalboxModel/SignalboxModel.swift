// SignalboxModel
