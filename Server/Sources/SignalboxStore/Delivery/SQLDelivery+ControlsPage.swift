import Foundation
import SQLKit
import SignalboxAPI
import SignalboxModel

/// PostgreSQL's page for a controls target: the audience's installations and their controls in one statement.
extension SQLDelivery {
    /// The same page as `installationPage` and `candidates` give, read as the controls' index range merged with the
    /// installations' (docs/performance.md): no list of installations read first and its controls looked up again.
    /// The limit counts installations, a statement's rows count controls: a statement asks for as many rows as the
    /// installations still missing (one control each, the common case) and takes the last one's other controls with
    /// it (`WITH TIES`); with fewer installations than that, the next asks for more from where it ended.
    /// - Returns: the candidates, the page's last installation id (nil for none), and whether the audience (or the
    ///   range up to `upperBound`) ends with it.
    static func controlsPage(
        _ db: any SQLDatabase, event: EventRecord, kinds: [String], filtered: Bool, after cursor: String, upTo upperBound: String?, limit: Int
    ) async throws -> (candidates: [FanOutCandidate], last: String?, exhausted: Bool) {
        var candidates: [FanOutCandidate] = []
        var installations = 0
        var from = cursor
        var rows = limit
        while true {
            let read = try await controlRows(db, event: event, kinds: kinds, filtered: filtered, after: from, upTo: upperBound, rows: rows)
            candidates.reserveCapacity(candidates.count + read.controls.count)
            for candidate in read.controls {
                if candidate.installationId != candidates.last?.installationId {
                    if installations == limit { return (candidates, candidates.last?.installationId, false) }
                    installations += 1
                }
                candidates.append(candidate)
            }
            guard !read.ended, installations < limit, let last = candidates.last?.installationId else {
                return (candidates, candidates.last?.installationId, installations < limit)
            }
            from = last
            rows = (limit - installations) * max(1, (candidates.count + installations - 1) / installations)
        }
    }

    /// Up to `rows` rows of controls after the installation `cursor` and all the last one's, by installation, each
    /// installation's controls in their order. `ended`: nothing follows them (or the range ends).
    /// The rows come back as one row, each column's values joined (`unitSeparated`): PostgreSQL sends one message
    /// instead of one per control, and the client decodes one row instead of one per push (docs/performance.md).
    /// The aggregates read the ordered subquery's rows as they come, so every column keeps that order.
    private static func controlRows(
        _ db: any SQLDatabase, event: EventRecord, kinds: [String], filtered: Bool, after cursor: String, upTo upperBound: String?, rows: Int
    ) async throws -> (controls: [FanOutCandidate], ended: Bool) {
        let beyond: SQLQueryString = upperBound.map { "i.installation_id > \(bind: $0)" } ?? "false"
        // The cursor bounds both sides, so that both are index range scans merged in order.
        let query: SQLQueryString = """
            SELECT string_agg(installation_id, E'\\x1f') AS installation_ids, string_agg(position::text, E'\\x1f') AS positions,
                string_agg(environment, E'\\x1f') AS environments, string_agg(kind, E'\\x1f') AS kinds,
                string_agg(configuration, E'\\x1f') AS configurations, string_agg(push_token, E'\\x1f') AS push_tokens,
                count(*) FILTER (WHERE NOT beyond) AS within
            FROM (SELECT c.installation_id, c.position, i.environment, c.kind,
                    \(unsafeRaw: filtered ? "c.configuration" : "''") AS configuration, c.push_token, \(beyond) AS beyond
                FROM controls c JOIN installations i ON i.app_id = c.app_id AND i.installation_id = c.installation_id
                WHERE c.app_id = \(bind: event.appId) AND c.installation_id > \(bind: cursor) AND i.installation_id > \(bind: cursor)\
                \(Self.kinds(kinds, column: "c.kind"))\(audienceCondition(event))
                ORDER BY c.installation_id FETCH FIRST \(bind: rows) ROWS WITH TIES) AS page
            """
        guard let row = try await db.raw(query).first(), try !row.decodeNil(column: "installation_ids") else { return ([], true) }
        let columns = try ["installation_ids", "positions", "environments", "kinds", "configurations", "push_tokens"].map {
            unitSeparated(try row.decode(column: $0, as: String.self))
        }
        let (ids, positions, environments, kindsRead, configurations, tokens) = (columns[0], columns[1], columns[2], columns[3], columns[4], columns[5])
        // In installation order, the rows beyond the range's end come last.
        let within = try row.decode(column: "within", as: Int.self)
        guard columns.allSatisfy({ $0.count == ids.count }), within <= ids.count else {
            throw StoreError(.unavailable, "a controls page's columns differ in length")
        }
        var controls: [FanOutCandidate] = []
        controls.reserveCapacity(within)
        var order: [Int] = []
        order.reserveCapacity(within)
        for index in 0..<within {
            guard let environment = Environment(rawValue: environments[index]), let position = Int(positions[index]) else {
                throw StoreError(.unavailable, "a controls page's row \(index) does not parse")
            }
            controls.append(FanOutCandidate(
                installationId: ids[index], environment: environment, token: tokens[index],
                entries: [(kindsRead[index], try configuration(configurations[index], filtered: filtered))]
            ))
            order.append(position)
        }
        let ended = ids.count < rows || within < ids.count
        return (inOrder(controls, order), ended)
    }

    /// A column's values as `string_agg(…, E'\x1f')` joined them. None holds that control character: ids and kinds
    /// are refused with control characters (`Validate.identifier`), tokens are hex, environments and numbers are
    /// plain, and configurations are JSON text, which escapes control characters.
    private static func unitSeparated(_ text: String) -> [String] {
        text.utf8.split(separator: 0x1F, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// Each installation's controls by position: `WITH TIES` orders only by installation. The index scan reads them
    /// in that order already, so this sorts only when they are not.
    private static func inOrder(_ controls: [FanOutCandidate], _ positions: [Int]) -> [FanOutCandidate] {
        let sorted = controls.indices.dropFirst().allSatisfy {
            controls[$0].installationId != controls[$0 - 1].installationId || positions[$0] > positions[$0 - 1]
        }
        guard !sorted else { return controls }
        var group = 0
        let groups = controls.indices.map { index in
            if index > 0, controls[index].installationId != controls[index - 1].installationId { group += 1 }
            return group
        }
        return controls.indices.sorted { (groups[$0], positions[$0]) < (groups[$1], positions[$1]) }.map { controls[$0] }
    }
}
