/// The time of an app's newest delivery-log line beyond the `keep` newest, with lines both as rows and in runs
/// (`LogRun`): the prune deletes lines at or before it. Runs are few and read whole; rows are only counted and
/// offset in their time index, once per step of a binary search over the runs' times.
struct LogCountCutoff {
    /// The app's runs, newest first.
    var runs: [(at: Int64, lines: Int)]
    /// How many rows were logged at or after a time.
    var rowsAtOrAfter: (Int64) async throws -> Int
    /// The time of the row `offset` places after the newest (0: the newest), or nil.
    var rowTime: (_ offset: Int) async throws -> Int64?

    func time(keep: Int) async throws -> Int64? {
        // newer[i]: lines of the runs before index i (runs logged later than runs[i], with its ties excluded).
        var newer = [0]
        for run in runs { newer.append(newer[newer.count - 1] + run.lines) }
        // The first and last of the runs logged at the same time as runs[index].
        func firstWithTime(_ index: Int) -> Int {
            var first = index
            while first > 0, runs[first - 1].at == runs[index].at { first -= 1 }
            return first
        }
        func lastWithTime(_ index: Int) -> Int {
            var last = index
            while last + 1 < runs.count, runs[last + 1].at == runs[index].at { last += 1 }
            return last
        }
        // The first run whose time already has more than `keep` lines at or after it (lines counted grow down the list).
        var low = 0, high = runs.count
        while low < high {
            let middle = (low + high) / 2
            if try await rowsAtOrAfter(runs[middle].at) + newer[lastWithTime(middle) + 1] > keep { high = middle } else { low = middle + 1 }
        }
        guard low < runs.count else {
            // Every run is among the newest `keep`: the cut falls among the rows older than them all.
            return try await rowTime(keep - newer[runs.count])
        }
        // The cut is that run's time, or a row logged after it and before the newer runs.
        let first = firstWithTime(low)
        if let row = try await rowTime(keep - newer[first]), row > runs[low].at { return row }
        return runs[low].at
    }
}
