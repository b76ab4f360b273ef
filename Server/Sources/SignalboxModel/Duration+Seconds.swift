extension Duration {
    /// The duration in seconds, for `Date` arithmetic and for figures.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
