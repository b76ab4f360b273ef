#if os(Linux)
import AppleFrameworkStubs
import Foundation

/// The replicated File Provider extension of a simulated phone (it enumerates nothing; only its kind matters).
final class SimulatedReplicatedExtension: NSObject, NSFileProviderReplicatedExtension {
    init(domain: NSFileProviderDomain) {}
    func invalidate() {}
    func enumerator(for containerItemIdentifier: NSFileProviderItemIdentifier, request: NSFileProviderRequest) throws -> any NSFileProviderEnumerator {
        throw CocoaError(.featureUnsupported)
    }
}
#endif
