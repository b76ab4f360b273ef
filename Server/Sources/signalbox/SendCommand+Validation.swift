import ArgumentParser
import SignalboxAPNs

extension SendCommand {
    /// Checks every option before `run()` opens a connection, so a push APNs would accept and the device
    /// would drop (a File Provider signal without `domain`) fails here, naming the option to add.
    func validate() throws {
        _ = try makePush()
        guard APNsEnvironment(rawValue: environment) != nil else {
            throw ValidationError("--environment must be sandbox or production")
        }
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be 1-65535") }
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    /// The push the options describe, with the push type's required payload fields present.
    func makePush() throws -> Push {
        guard let pushType = PushType(rawValue: type) else {
            throw ValidationError("unknown push type '\(type)'; use one of \(PushType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let deviceToken: DeviceToken
        do { deviceToken = try DeviceToken(hex: token) } catch { throw ValidationError("--token: \(error.message)") }
        let body = try payloadBytes(for: pushType)
        let missing = pushType.missingFields(in: body)
        guard missing.isEmpty else {
            throw ValidationError("--payload for --type \(type) lacks \(missing.joined(separator: ", "))")
        }
        let chosenPriority: Priority?? = try priority.map { value in
            guard let priority = Priority(rawValue: value) else { throw ValidationError("--priority must be 10, 5 or 1") }
            return .some(priority)
        }
        let chosenExpiration: Expiration?? = try expiration.map { value in
            guard value >= 0 else { throw ValidationError("--expiration must be 0 or UNIX seconds") }
            return value == 0 ? .immediately : .at(epochSeconds: value)
        }
        do {
            return try Push(
                deviceToken: deviceToken, pushType: pushType, bundleId: bundleId, payload: body,
                priority: chosenPriority ?? .none, expiration: chosenExpiration ?? .none, collapseId: collapseId
            )
        } catch { throw ValidationError(error.message) }
    }

    /// `--payload` as given, or the body the push type's options build.
    private func payloadBytes(for pushType: PushType) throws -> [UInt8] {
        guard pushType == .fileprovider || (container == nil && domain == nil) else {
            throw ValidationError("--container and --domain apply to --type fileprovider only")
        }
        if let payload {
            guard container == nil && domain == nil else {
                throw ValidationError("give either --payload or --container/--domain, not both")
            }
            return Array(payload.utf8)
        }
        switch pushType {
        case .fileprovider:
            guard let domain, !domain.isEmpty else {
                throw ValidationError(
                    "--domain is required for --type fileprovider: APNs needs both container-identifier and domain"
                )
            }
            return Payload.fileProvider(container: container ?? Payload.workingSetContainer, domain: domain)
        case .alert, .liveactivity:
            throw ValidationError("--payload is required for --type \(type): it has no default payload")
        case .widgets, .controls, .background:
            // Non-nil for these types.
            return Payload.default(for: pushType) ?? []
        }
    }
}
