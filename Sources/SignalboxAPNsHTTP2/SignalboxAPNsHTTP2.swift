// SignalboxAPNsHTTP2
