import Crypto
import Foundation
import SignalboxAPNs
import SignalboxTestSupport
import Synchronization
import Testing

@Suite struct ProviderTokenTests {
    let privateKey = P256.Signing.PrivateKey()
    var key: SigningKey { SigningKey(privateKey: privateKey, keyId: "KEY1234567", teamId: "TEAM123456") }

    @Test func jwtHasDocumentedHeaderClaimsAndRawSignature() throws {
        let issued = Date(timeIntervalSince1970: 1_800_000_123)
        let token = key.providerToken(issuedAt: issued)
        let parts = token.jwt.split(separator: ".")
        #expect(parts.count == 3)
        #expect(!token.jwt.contains("="))
        let header = try #require(Base64URL.decode(parts[0]))
        let claims = try #require(Base64URL.decode(parts[1]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"KEY1234567"}"#)
        #expect(String(decoding: claims, as: UTF8.self) == #"{"iss":"TEAM123456","iat":1800000123}"#)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
        #expect(privateKey.publicKey.isValidSignature(ecdsa, for: Data((parts[0] + "." + parts[1]).utf8)))
        #expect(token.bearer == "bearer " + token.jwt)
    }

    @Test func parsedTokenVerifiesOnlyWithItsKey() throws {
        let parsed = try #require(ProviderToken.parse(key.providerToken(issuedAt: Date()).jwt))
        #expect(parsed.keyId == "KEY1234567" && parsed.teamId == "TEAM123456" && parsed.algorithm == "ES256")
        #expect(parsed.isSigned(by: privateKey.publicKey))
        #expect(!parsed.isSigned(by: P256.Signing.PrivateKey().publicKey))
        #expect(ProviderToken.parse("a.b") == nil)
    }

    @Test func p8PemIsReadAndBadInputRejectedWithoutLeakingKey() throws {
        let pem = privateKey.pemRepresentation
        let loaded = try SigningKey(pem: pem, keyId: "ABCDEFGHIJ", teamId: "0123456789")
        #expect(loaded.publicKey.rawRepresentation == privateKey.publicKey.rawRepresentation)
        #expect(throws: SigningKey.Invalid.self) { try SigningKey(pem: "nope", keyId: "ABCDEFGHIJ", teamId: "0123456789") }
        #expect(throws: SigningKey.Invalid.self) { try SigningKey(pem: pem, keyId: "short", teamId: "0123456789") }
        #expect(throws: SigningKey.Invalid.self) { try SigningKey(pem: pem, keyId: "ABCDEFGHIJ", teamId: "lowercase1") }
    }

    @Test func managerReusesTokenUntilFiftyMinutes() {
        let clock = TestClock()
        let manager = ProviderTokenManager(key: key, now: { clock.now })
        let first = manager.current()
        #expect(first.issuedAt == clock.now)
        clock.advance(minutes: 49.9)
        #expect(manager.current() == first)
        clock.advance(minutes: 0.2)
        let second = manager.current()
        #expect(second != first)
        #expect(second.issuedAt == clock.now)
    }

    @Test func expiredProviderTokenMintsOnceButNeverWithinTwentyMinutes() {
        let clock = TestClock()
        let manager = ProviderTokenManager(key: key, now: { clock.now })
        let first = manager.current()
        clock.advance(minutes: 19)
        #expect(manager.expired(first) == nil)
        #expect(manager.current() == first)
        clock.advance(minutes: 2)
        let fresh = manager.expired(first)
        #expect(fresh != nil && fresh != first)
        // A second report about the old token returns the fresh one instead of minting again.
        #expect(manager.expired(first) == fresh)
    }

    @Test func tooManyUpdatesNeverMints() {
        let clock = TestClock()
        let manager = ProviderTokenManager(key: key, now: { clock.now })
        let first = manager.current()
        clock.advance(minutes: 5)
        #expect(manager.tooManyUpdates() == .seconds(15 * 60))
        #expect(manager.current() == first)
        clock.advance(minutes: 30)
        #expect(manager.tooManyUpdates() == .zero)
        #expect(manager.current() == first)
    }
}
