import SignalboxModel

/// The ports the memory backend implements, as one value like the SQL backends' `Stores`: the conformance suites
/// take their ports from it, so every backend is driven through the same ports.
public struct MemoryPorts: Sendable {
    public let registry: any RegistryStore
    public let delivery: any DeliveryStore
    public let changes: any ChangeNotifier
}

extension MemoryStore {
    /// This store as its ports (one storage behind all of them).
    public var ports: MemoryPorts { MemoryPorts(registry: self, delivery: self, changes: self) }
}
