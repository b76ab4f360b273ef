import Synchronization

/// A value shared with `@Sendable` closures.
public final class Box<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    public init(_ value: Value) { self.value = Mutex(value) }
    public func withLock<T: Sendable>(_ body: (inout sending Value) -> T) -> T { value.withLock { body(&$0) } }
    /// The value before `value` replaced it.
    public func exchange(_ new: Value) -> Value { value.withLock { old in defer { old = new }; return old } }
}
