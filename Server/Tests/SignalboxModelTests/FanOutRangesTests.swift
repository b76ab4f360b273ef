import SignalboxAPI
import SignalboxModel
import Testing

/// When a fan-out is cut into ranges, and into how many.
@Suite struct FanOutRangeRuleTests {
    @Test(arguments: [
        (installations: 19_999, batch: 1_000, ranges: 0),  // fewer than 20 pages: one cursor
        (20_000, 1_000, 2),
        (100_000, 1_000, 10),  // ranges of 10 pages
        (1_000_000, 1_000, 64),  // at most 64
        (3_000, 100, 3),
        (1_000, 25, 4),  // the kill test's event
        (5_000, 0, 0),
    ])
    func rangesPerApp(installations: Int, batch: Int, ranges: Int) {
        #expect(FanOutRanges.count(installations: installations, batchSize: batch) == ranges)
    }

    @Test(arguments: [
        (installations: 100_000, ranges: 20, batch: 500, length: 5_000),
        (100_000, 64, 500, 2_000),  // 1,563 rounded up to whole pages: 50 ranges
        (3_000, 3, 100, 1_000),
        (3_001, 3, 100, 1_100),
        (10, 4, 100, 100),
    ])
    func rangesAreWholePages(installations: Int, ranges: Int, batch: Int, length: Int) {
        #expect(FanOutRanges.length(installations: installations, ranges: ranges, batchSize: batch) == length)
    }

    @Test func onlyOpenAudiencesAreSplit() {
        #expect(FanOutRanges.splittable(.all))
        #expect(FanOutRanges.splittable(.channels(["home:42"])))
        #expect(!FanOutRanges.splittable(.users(["ana"])))
        #expect(!FanOutRanges.splittable(.installations(["i1"])))
    }
}
