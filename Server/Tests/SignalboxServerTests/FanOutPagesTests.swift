import Foundation
@testable import SignalboxDelivery
import SignalboxModel
import Testing

/// An event's pages start small and double up to the configured page; each event counts its own.
struct FanOutPagesTests {
    @Test func pagesDoubleFromTheFirstUpToTheLargest() {
        var pages = FanOutPages(largest: 1_000)
        var sizes: [Int] = []
        for _ in 0..<8 {
            sizes.append(pages.size(of: "e1"))
            pages.took("e1")
        }
        #expect(sizes == [32, 64, 128, 256, 512, 1_000, 1_000, 1_000])
        #expect(pages.size(of: "e2") == 32, "another event starts small")
    }

    @Test func aSmallConfiguredPageIsNeverExceededAndForgottenEventsStartAgain() {
        var pages = FanOutPages(largest: 10)
        #expect(pages.size(of: "e1") == 10)
        for _ in 0..<100 { pages.took("e1") }
        #expect(pages.size(of: "e1") == 10, "no overflow after many pages")
        var large = FanOutPages(largest: 1_000)
        large.took("e1")
        large.keep(only: [QueuedEvent(id: "e2", appId: "a", createdAt: Date())])
        #expect(large.size(of: "e1") == 32)
    }
}
