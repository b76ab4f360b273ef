/// Which due pushes a claim takes, and in what order: apps take turns, so one app's backlog delays another app's
/// push by one claim at most. The rule every store applies in `claimDuePushes`.
///
/// Each app's due pushes are ranked oldest first (by due time, then by push id); the claim takes every app's first,
/// then every app's second, and so on, up to `limit`. Within one turn, earlier due times go first.
public enum ClaimOrder {
    /// A pending push as the claim sees it.
    public struct Candidate: Sendable, Hashable {
        public var id: String
        public var appId: String
        /// When it is due (Unix milliseconds, as the outbox stores it).
        public var due: Int64

        public init(id: String, appId: String, due: Int64) {
            self.id = id
            self.appId = appId
            self.due = due
        }
    }

    /// The pending pushes a claim of `limit` at `now` takes, in the order it takes them: due ones (`due <= now`)
    /// of apps not in `pausedApps`, in turns between apps.
    ///
    /// Ties: within one app, equal due times go by push id (the SQL's `ROW_NUMBER() … ORDER BY next_attempt_at,
    /// push_id`). Between apps, equal turns with equal due times go by app id here; the SQL leaves that order (and
    /// which of an app's pushes with one due time make its first `limit`) to the database, so two stores agree on
    /// which pushes a claim takes only where `limit` does not cut through such a tie.
    public static func claim(_ pending: [Candidate], now: Int64, limit: Int, pausedApps: Set<String> = []) -> [Candidate] {
        guard limit > 0 else { return [] }
        let due = pending.filter { $0.due <= now && !pausedApps.contains($0.appId) }
        var turns: [(turn: Int, push: Candidate)] = []
        for (_, pushes) in Dictionary(grouping: due, by: \.appId) {
            let ranked = pushes.sorted { ($0.due, $0.id) < ($1.due, $1.id) }.prefix(limit)
            turns += ranked.enumerated().map { (turn: $0.offset + 1, push: $0.element) }
        }
        turns.sort { ($0.turn, $0.push.due, $0.push.appId) < ($1.turn, $1.push.due, $1.push.appId) }
        return turns.prefix(limit).map(\.push)
    }
}
