import SignalboxWebhooks
import Testing

/// Which addresses a webhook may be sent to: every special-purpose range is refused, IPv6 forms carrying an IPv4
/// address are judged by it, public addresses pass.
struct NetworkAddressTests {
    @Test(arguments: [
        ("0.0.0.0", "unspecified"), ("0.1.2.3", "unspecified"), ("10.0.0.1", "private"), ("10.255.255.255", "private"),
        ("100.64.0.1", "shared address space"), ("100.127.255.254", "shared address space"), ("127.0.0.1", "loopback"),
        ("127.255.0.9", "loopback"), ("169.254.169.254", "link-local"), ("172.16.0.1", "private"), ("172.31.255.255", "private"),
        ("192.168.1.1", "private"), ("192.0.0.8", "reserved"), ("198.18.0.1", "benchmarking"), ("198.19.255.255", "benchmarking"),
        ("224.0.0.1", "multicast"), ("239.255.255.250", "multicast"), ("240.0.0.1", "reserved"), ("255.255.255.255", "broadcast"),
        ("::", "unspecified"), ("::1", "loopback"), ("[::1]", "loopback"), ("fc00::1", "private"), ("fd12:3456::1", "private"),
        ("fe80::1", "link-local"), ("fe80::1%eth0", "link-local"), ("febf::1", "link-local"), ("ff02::1", "multicast"),
        ("::ffff:127.0.0.1", "loopback"), ("::ffff:7f00:1", "loopback"), ("::ffff:169.254.169.254", "link-local"),
        ("::ffff:10.1.2.3", "private"), ("::ffff:0:192.168.0.1", "private"), ("::127.0.0.1", "loopback"),
        ("64:ff9b::127.0.0.1", "loopback"), ("64:ff9b::a9fe:a9fe", "link-local"), ("64:ff9b::10.0.0.1", "private"),
        ("64:ff9b:1::1", "private"), ("2002:7f00:1::1", "loopback"), ("2002:c0a8:101::1", "private"),
    ])
    func nonPublicAddressesAreRefused(_ text: String, _ range: String) throws {
        let address = try #require(NetworkAddress(text), "\(text) parses")
        #expect(!address.isPublic, "\(text)")
        #expect(address.nonPublicRange?.rawValue == range, "\(text)")
    }

    @Test(arguments: [
        "93.184.216.34", "8.8.8.8", "1.1.1.1", "9.255.255.255", "11.0.0.1", "100.63.255.255", "100.128.0.1", "126.255.255.255",
        "128.0.0.1", "169.253.1.1", "169.255.0.1", "172.15.255.255", "172.32.0.1", "192.0.1.1", "192.167.1.1", "192.169.0.1",
        "198.17.255.255", "198.20.0.1", "223.255.255.254", "2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8",
        "64:ff9b::8.8.8.8", "2002:808:808::1",
    ])
    func publicAddressesPass(_ text: String) throws {
        let address = try #require(NetworkAddress(text), "\(text) parses")
        #expect(address.isPublic, "\(text): \(address.nonPublicRange?.rawValue ?? "")")
    }

    @Test(arguments: ["localhost", "example.com", "127.1", "2130706433", "0x7f.0.0.1", "1.2.3", "[::1", "::1::2", ""])
    func namesAndOddFormsAreNotLiterals(_ text: String) {
        // Names and the shorthand IPv4 forms inet_aton takes are resolved (getaddrinfo reads them as the client would).
        #expect(NetworkAddress(text) == nil, "\(text)")
    }

    @Test func aHostIsPublicOnlyWhenEveryAddressIs() async {
        let mixed = WebhookTargetCheck(allowPrivate: false) { _ in [NetworkAddress("8.8.8.8")!, NetworkAddress("10.0.0.1")!] }
        guard case .notPublic(let reason) = await mixed.check(url: "https://hooks.example.com/x") else {
            Issue.record("a name with a private address among public ones passed")
            return
        }
        #expect(reason.contains("private") && !reason.contains("10.0.0.1"), "\(reason)")
        let publicOnly = WebhookTargetCheck(allowPrivate: false) { _ in [NetworkAddress("8.8.8.8")!, NetworkAddress("2001:4860:4860::8888")!] }
        #expect(await publicOnly.check(url: "https://hooks.example.com/x") == .allowed)
        let failing = WebhookTargetCheck(allowPrivate: false) { _ in throw CancellationError() }
        guard case .unresolved = await failing.check(url: "https://hooks.example.com/x") else {
            Issue.record("a lookup failure was not reported as unresolved")
            return
        }
        #expect(await WebhookTargetCheck(allowPrivate: true) { _ in [NetworkAddress("127.0.0.1")!] }.check(url: "http://localhost/x") == .allowed)
    }

    @Test func aHungLookupEndsAtItsTimeout() async {
        // The lookup would answer after an hour: a check that ends at all, and within a minute, ended at its 100 ms
        // timeout however loaded the run, never at the answer.
        let hung = WebhookTargetCheck(allowPrivate: false, lookupTimeout: .milliseconds(100)) { _ in
            try? await Task.sleep(for: .seconds(3600))
            return [NetworkAddress("8.8.8.8")!]
        }
        let start = ContinuousClock.now
        guard case .unresolved = await hung.check(url: "https://hooks.example.com/x") else {
            Issue.record("a lookup that never answered passed")
            return
        }
        #expect(ContinuousClock.now - start < .seconds(60))
    }

    @Test func theSystemResolverReadsLocalhostAndNumericForms() async throws {
        #expect(try await SystemResolver.addresses(of: "localhost").contains { $0.nonPublicRange == .loopback })
        #expect(try await SystemResolver.addresses(of: "2130706433") == [NetworkAddress("127.0.0.1")!])
        #expect(try await SystemResolver.addresses(of: "127.1") == [NetworkAddress("127.0.0.1")!])
    }
}
