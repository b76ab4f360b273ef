import SignalboxAPI

/// How a large fan-out is cut so that several instances plan it at once: each range of installation ids is planned
/// page by page by whichever instance holds it for a step.
public enum FanOutRanges {
    /// Audiences of at least this many pages of installations are split; smaller ones are planned by one cursor.
    public static let minimumPages = 20
    /// A range is at least this many pages long, so a range's own pages keep the page queries' index order.
    public static let pagesPerRange = 10
    /// At most this many ranges per event: enough for every instance of a deployment to take one.
    public static let maximumRanges = 64

    /// Whether the audience can be large enough to split: an explicit list of users or installations is bounded.
    public static func splittable(_ audience: Audience) -> Bool {
        switch audience {
        case .all, .channels: return true
        case .users, .installations: return false
        }
    }

    /// The installations per range when `installations` are cut into `ranges` planned in pages of `batchSize`: an
    /// even cut rounded up to whole pages, so that no range ends in a short page (a step of its own for a few pushes).
    public static func length(installations: Int, ranges: Int, batchSize: Int) -> Int {
        let even = (installations + max(1, ranges) - 1) / max(1, ranges)
        let page = max(1, batchSize)
        return max(page, (even + page - 1) / page * page)
    }

    /// The number of ranges over an app's `installations` (the ids are cut, whatever the audience) planned in pages of
    /// `batchSize`; 0 or 1 means no split.
    public static func count(installations: Int, batchSize: Int) -> Int {
        guard batchSize > 0, installations >= minimumPages * batchSize else { return 0 }
        return min(maximumRanges, installations / (pagesPerRange * batchSize))
    }
}
