import SignalboxModel
import Testing

@Suite struct QuotasTests {
    @Test func aNewInstallationIsRefusedAtTheUsersLimitAndAKnownOneNever() throws {
        try Quotas.checkInstallation(isNew: true, existing: 2, maximum: 3)
        try Quotas.checkInstallation(isNew: false, existing: 3, maximum: 3)
        try Quotas.checkInstallation(isNew: true, existing: 100, maximum: nil)
        #expect(throws: StoreError(.quotaExceeded, "this user already has 3 installations; delete one first")) {
            try Quotas.checkInstallation(isNew: true, existing: 3, maximum: 3)
        }
    }

    @Test func aNewEnumeratorIsRefusedAtTheLimitAndARenewalNever() throws {
        try Quotas.checkEnumerator(isRenewal: false, live: 1, maximum: 2)
        try Quotas.checkEnumerator(isRenewal: true, live: 2, maximum: 2)
        #expect(throws: StoreError(.quotaExceeded, "this installation already has 2 live enumerators")) {
            try Quotas.checkEnumerator(isRenewal: false, live: 2, maximum: 2)
        }
    }
}
