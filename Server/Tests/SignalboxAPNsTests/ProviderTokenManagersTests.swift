import Crypto
import SignalboxAPNs
import Testing

@Suite struct ProviderTokenManagersTests {
    @Test func appsOnOneKeyShareOneManagerAndOneToken() {
        let managers = ProviderTokenManagers()
        let privateKey = P256.Signing.PrivateKey()
        // Two apps load the same .p8 separately: two `SigningKey` values, one key.
        let first = managers.manager(for: SigningKey(privateKey: privateKey, keyId: "KEY1234567", teamId: "TEAM123456"))
        let second = managers.manager(for: SigningKey(privateKey: privateKey, keyId: "KEY1234567", teamId: "TEAM123456"))
        #expect(first === second)
        #expect(first.current() == second.current())
    }

    @Test func keysClaimingTheSameIdsStayApart() {
        let managers = ProviderTokenManagers()
        let first = managers.manager(for: SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM123456"))
        let second = managers.manager(for: SigningKey(privateKey: .init(), keyId: "KEY1234567", teamId: "TEAM123456"))
        #expect(first !== second)
    }
}
