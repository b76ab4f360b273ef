/// An app's minimum interval between pushes of one kind to one token (off by default): the throttling rule the
/// stores apply when they plan a push. Times are Unix milliseconds, as the outbox stores them.
public enum MinimumInterval {
    /// When a push planned at `planned` may go out: at once, or `seconds` after the token's last push of the kind.
    /// Until then it waits in the outbox, where later events for the same token and payload are absorbed into it.
    public static func due(planned: Int64, lastSent: Int64?, seconds: Int) -> Int64 {
        guard seconds > 0, let lastSent else { return planned }
        return max(planned, lastSent + Int64(seconds) * 1000)
    }
}
