import Foundation
import Testing
@testable import ReceiptParser
import ReceiptTestSupport

/// The typed payload models (Model/StoreKit) against the real tokens' independently decoded
/// payloads, and the rules of reading: wrong types refused naming the field, unknown values
/// and members kept, JSON that reads back.
struct SignedDataModelTests {
    typealias Case = SignedDataCorpusTests.Case

    static let allTokens = SignedDataCorpusTests.apple + SignedDataCorpusTests.xcode + SignedDataCorpusTests.testCA

    /// The members the models write as dates (RFC 3339) where the payload has milliseconds.
    static let dateKeys: Set<String> = [
        "purchaseDate", "originalPurchaseDate", "expiresDate", "signedDate", "revocationDate", "gracePeriodExpiresDate",
        "recentSubscriptionStartDate", "renewalDate", "receiptCreationDate", "preorderDate", "tokenCreationDate",
        "commitmentExpiresDate", "commitmentRenewalDate",
    ]

    /// Members of the corpus no model documents (device-only and Xcode-only fields).
    static func undocumented(_ kind: SignedDataKind) -> Set<String> {
        switch kind {
        case .transaction, .renewalInfo: ["deviceVerification", "deviceVerificationNonce"]
        case .appTransaction: ["requestDate"]
        case .notification: []
        }
    }

    static func payload(of item: Case) throws -> StrictJSON.Value {
        try CompactJWS(item.token()).payloadValue
    }

    static func read(_ json: String, as kind: SignedDataKind) throws(ReceiptError) -> SignedPayload {
        try SignedPayload(kind: kind, payload: StrictJSON.parse(Array(json.utf8)))
    }

    static func written(_ value: some JSONWritable) -> String {
        var json = JSONWriter()
        value.write(to: &json)
        return json.finishString()
    }

    static func milliseconds(_ date: Date) -> Double { date.timeIntervalSince1970 * 1000 }

    /// `written` (the model's JSON) says what `expected` (the payload as Python read it) says,
    /// member for member; dates to the millisecond.
    static func compare(_ written: [String: Any], _ expected: [String: Any], path: String = "") {
        #expect(Set(written.keys) == Set(expected.keys), "\(path): \(written.keys.sorted()) vs \(expected.keys.sorted())")
        for (key, wanted) in expected {
            guard let found = written[key] else { continue }
            if dateKeys.contains(key), let milliseconds = (wanted as? NSNumber)?.doubleValue {
                let date = RFC3339.date(from: found as? String ?? "")
                #expect(date.map { abs(Self.milliseconds($0) - milliseconds) <= 0.5 } == true, "\(path)\(key): \(found) vs \(wanted)")
            } else if let wantedObject = wanted as? [String: Any], let foundObject = found as? [String: Any] {
                compare(foundObject, wantedObject, path: "\(path)\(key).")
            } else {
                #expect(NSArray(array: [found]) == NSArray(array: [wanted]), "\(path)\(key): \(found) vs \(wanted)")
            }
        }
    }

    /// Every real token's payload reads as its kind and says what the ground truth says.
    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing), arguments: allTokens)
    func corpusPayloadsDecodeFieldForField(_ item: Case) throws {
        let expected = try #require(try item.expected()["payload"] as? [String: Any])
        let payload = try Self.payload(of: item)
        let kind = SignedDataKind.detect(payload: payload) ?? item.kind
        let model = try SignedPayload(kind: kind, payload: payload)
        #expect(model.kind == kind)

        let text = Self.written(model)
        let written = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        Self.compare(written, expected)

        // Exact dates, fractions of a millisecond included (Xcode writes them).
        let dateField = kind == .appTransaction ? "receiptCreationDate" : "signedDate"
        if let milliseconds = (expected[dateField] as? NSNumber)?.doubleValue {
            let date = try #require(model.signedDate)
            #expect(abs(Self.milliseconds(date) - milliseconds) < 0.001)
        } else {
            #expect(model.signedDate == nil)
        }

        // The members no model documents are kept, in order, and only they.
        let unknown: [StrictJSON.Member]
        switch model {
        case .transaction(let value):
            unknown = value.unknownFields
            #expect(value.bundleId == expected["bundleId"] as? String)
            #expect(value.price == (expected["price"] as? NSNumber)?.int64Value)
            #expect(value.type?.rawValue == expected["type"] as? String)
            #expect(value.offerType?.rawValue == (expected["offerType"] as? NSNumber)?.int32Value)
        case .renewalInfo(let value):
            unknown = value.unknownFields
            #expect(value.autoRenewStatus?.rawValue == (expected["autoRenewStatus"] as? NSNumber)?.int32Value)
            #expect(value.renewalPrice == (expected["renewalPrice"] as? NSNumber)?.int64Value)
        case .appTransaction(let value):
            unknown = value.unknownFields
            #expect(model.environment == expected["receiptType"] as? String)
        case .notification(let value):
            unknown = value.unknownFields
            let data = expected["data"] as? [String: Any]
            #expect(value.notificationType?.rawValue == expected["notificationType"] as? String)
            #expect(value.data?.signedTransactionInfo == data?["signedTransactionInfo"] as? String)
            #expect(model.environment == data?["environment"] as? String)
            #expect(model.bundleId == data?["bundleId"] as? String)
            #expect(model.appAppleId == (data?["appAppleId"] as? NSNumber)?.int64Value)
        }
        let undocumented = Self.undocumented(kind)
        guard case .object(let members) = payload else { Issue.record("not an object"); return }
        #expect(unknown.map(\.key) == members.map(\.key).filter(undocumented.contains))
        for member in unknown {
            #expect(payload[member.key] == member.value)
        }
    }

    /// The JSON written reads back (strictly, and through `Codable`) to a model that writes the
    /// same JSON, and equals the model when its dates are whole milliseconds.
    @Test(.enabled(if: Paths.corpusAvailable, Paths.corpusMissing), arguments: allTokens)
    func writtenJSONRoundTrips(_ item: Case) throws {
        let payload = try Self.payload(of: item)
        let kind = SignedDataKind.detect(payload: payload) ?? item.kind
        let model = try SignedPayload(kind: kind, payload: payload)
        let text = Self.written(model)
        let parsed = try StrictJSON.parse(Array(text.utf8))

        let again: String
        let coded: Data
        switch model {
        case .transaction:
            again = Self.written(try SignedTransaction.read(written: parsed))
            coded = try JSONEncoder.receiptModels().encode(JSONDecoder.receiptModels().decode(SignedTransaction.self, from: Data(text.utf8)))
        case .renewalInfo:
            again = Self.written(try SignedRenewalInfo.read(written: parsed))
            coded = try JSONEncoder.receiptModels().encode(JSONDecoder.receiptModels().decode(SignedRenewalInfo.self, from: Data(text.utf8)))
        case .appTransaction:
            again = Self.written(try SignedAppTransaction.read(written: parsed))
            coded = try JSONEncoder.receiptModels().encode(JSONDecoder.receiptModels().decode(SignedAppTransaction.self, from: Data(text.utf8)))
        case .notification:
            again = Self.written(try ServerNotification.read(written: parsed))
            coded = try JSONEncoder.receiptModels().encode(JSONDecoder.receiptModels().decode(ServerNotification.self, from: Data(text.utf8)))
        }
        // Equal text: the JSON keeps dates to the millisecond, so Xcode's fractions are rounded once.
        #expect(again == text)
        if !item.folder.hasPrefix("xcode") {
            switch model {
            case .transaction(let value): #expect(try SignedTransaction.read(written: parsed) == value)
            case .renewalInfo(let value): #expect(try SignedRenewalInfo.read(written: parsed) == value)
            case .appTransaction(let value): #expect(try SignedAppTransaction.read(written: parsed) == value)
            case .notification(let value): #expect(try ServerNotification.read(written: parsed) == value)
            }
        }
        let viaCodable = try JSONSerialization.jsonObject(with: coded) as! NSDictionary
        #expect(viaCodable == (try JSONSerialization.jsonObject(with: Data(text.utf8)) as! NSDictionary))
    }

    @Test func everyDocumentedFieldIsRead() throws {
        let json = """
        {"originalTransactionId":"1","transactionId":"2","webOrderLineItemId":"3","bundleId":"b","productId":"p",
         "subscriptionGroupIdentifier":"g","purchaseDate":1700000000000,"originalPurchaseDate":1700000000001,
         "expiresDate":1700000000002,"quantity":1,"type":"Auto-Renewable Subscription",
         "appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138","inAppOwnershipType":"PURCHASED",
         "signedDate":1700000000003,"revocationReason":1,"revocationDate":1700000000004,"isUpgraded":false,
         "offerType":4,"offerIdentifier":"o","environment":"Sandbox","storefront":"USA","storefrontId":"143441",
         "transactionReason":"RENEWAL","currency":"USD","price":9990,"offerDiscountType":"PAY_UP_FRONT",
         "appTransactionId":"704","offerPeriod":"P1M","revocationType":"REFUND_PRORATED","revocationPercentage":50000,
         "advancedCommerceInfo":{"descriptors":{"displayName":"d"},"estimatedTax":10,"items":[{"SKU":"s"}],"period":"P1M",
           "requestReferenceId":"r","taxCode":"C003","taxExclusivePrice":9000,"taxRate":"0.08"},
         "billingPlanType":"MONTHLY",
         "commitmentInfo":{"billingPeriodNumber":2,"commitmentExpiresDate":1700000000005,"commitmentPrice":119880,"totalBillingPeriods":12}}
        """
        guard case .transaction(let transaction) = try Self.read(json, as: .transaction) else { Issue.record("kind"); return }
        #expect(transaction.unknownFields.isEmpty)
        #expect(transaction.price == 9990 && transaction.currency == "USD")
        #expect(transaction.type == .autoRenewableSubscription && transaction.offerType == .winBackOffer)
        #expect(transaction.offerDiscountType == .payUpFront && transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 50000 && transaction.revocationReason == .refundedDueToIssue)
        #expect(transaction.billingPlanType == .monthly && transaction.transactionReason == .renewal)
        #expect(transaction.commitmentInfo?.commitmentPrice == 119880 && transaction.commitmentInfo?.totalBillingPeriods == 12)
        #expect(transaction.commitmentInfo?.commitmentExpiresDate == Date(timeIntervalSince1970: 1_700_000_000.005))
        #expect(transaction.advancedCommerceInfo?.taxExclusivePrice == 9000 && transaction.advancedCommerceInfo?.items?.count == 1)
        #expect(transaction.signedDate == Date(timeIntervalSince1970: 1_700_000_000.003))
        let text = Self.written(transaction)
        #expect(text.contains(#""signedDate":"2023-11-14T22:13:20.003Z""#))
        #expect(text.contains(#""purchaseDate":"2023-11-14T22:13:20.000Z""#))

        let renewal = """
        {"expirationIntent":1,"originalTransactionId":"1","autoRenewProductId":"a","productId":"p","autoRenewStatus":1,
         "isInBillingRetryPeriod":false,"priceIncreaseStatus":0,"gracePeriodExpiresDate":1,"offerType":2,"offerIdentifier":"o",
         "signedDate":2,"environment":"Production","recentSubscriptionStartDate":3,"renewalDate":4,"currency":"EUR",
         "renewalPrice":4990,"offerDiscountType":"FREE_TRIAL","eligibleWinBackOfferIds":["w1","w2"],
         "appAccountToken":"u","appTransactionId":"t","offerPeriod":"P1W","renewalBillingPlanType":"BILLED_UPFRONT",
         "advancedCommerceInfo":{"consistencyToken":"c","descriptors":{},"items":[],"period":"P1Y","requestReferenceId":"r","taxCode":"t"},
         "commitmentInfo":{"commitmentAutoRenewProductId":"p","commitmentAutoRenewStatus":0,"commitmentRenewalBillingPlanType":"MONTHLY",
           "commitmentRenewalDate":5,"commitmentRenewalPrice":6}}
        """
        guard case .renewalInfo(let info) = try Self.read(renewal, as: .renewalInfo) else { Issue.record("kind"); return }
        #expect(info.unknownFields.isEmpty)
        #expect(info.eligibleWinBackOfferIds == ["w1", "w2"] && info.renewalPrice == 4990)
        #expect(info.autoRenewStatus == .on && info.expirationIntent == .customerCancelled && info.priceIncreaseStatus == .customerHasNotResponded)
        #expect(info.commitmentInfo?.commitmentAutoRenewStatus == .off && info.commitmentInfo?.commitmentRenewalBillingPlanType == .monthly)
        #expect(info.advancedCommerceInfo?.consistencyToken == "c" && info.renewalBillingPlanType == .billedUpfront)

        let app = """
        {"receiptType":"Production","appAppleId":1234,"bundleId":"b","applicationVersion":"1","versionExternalIdentifier":5,
         "receiptCreationDate":10,"originalPurchaseDate":11,"originalApplicationVersion":"0","deviceVerification":"dv",
         "deviceVerificationNonce":"n","preorderDate":12,"appTransactionId":"a","originalPlatform":"visionOS"}
        """
        guard case .appTransaction(let appTransaction) = try Self.read(app, as: .appTransaction) else { Issue.record("kind"); return }
        #expect(appTransaction.unknownFields.isEmpty)
        #expect(appTransaction.originalPlatform == .visionOS && appTransaction.versionExternalIdentifier == 5)
        #expect(appTransaction.signedDate == Date(timeIntervalSince1970: 0.010) && appTransaction.environment == "Production")

        for (json, bundle) in [
            (#"{"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"u","version":"2.0","signedDate":1,"summary":{"environment":"Sandbox","appAppleId":7,"bundleId":"s","productId":"p","requestIdentifier":"r","storefrontCountryCodes":["USA"],"succeededCount":5,"failedCount":0}}"#, "s"),
            (#"{"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","externalPurchaseToken":{"externalPurchaseId":"SANDBOX_1","tokenCreationDate":1,"appAppleId":7,"bundleId":"e"}}"#, "e"),
            (#"{"notificationType":"RESCIND_CONSENT","appData":{"appAppleId":7,"bundleId":"a","environment":"Sandbox","signedAppTransactionInfo":"x.y.z"}}"#, "a"),
            (#"{"notificationType":"CONSUMPTION_REQUEST","data":{"environment":"Sandbox","appAppleId":7,"bundleId":"d","bundleVersion":"1","signedTransactionInfo":"t","signedRenewalInfo":"r","status":1,"consumptionRequestReason":"LEGAL"}}"#, "d"),
        ] {
            guard case .notification(let notification) = try Self.read(json, as: .notification) else { Issue.record("kind"); continue }
            #expect(notification.unknownFields.isEmpty)
            #expect(notification.bundleId == bundle && notification.appAppleId == 7)
            #expect([notification.data?.unknownFields, notification.summary?.unknownFields, notification.appData?.unknownFields,
                     notification.externalPurchaseToken?.unknownFields].allSatisfy { $0?.isEmpty ?? true })
        }
    }

    @Test func unknownValuesAndMembersAreKept() throws {
        let json = #"{"transactionId":"1","type":"Weird","offerType":9,"zeta":{"b":1,"a":[true,null]},"inAppOwnershipType":"LENT","alpha":1.50}"#
        guard case .transaction(let transaction) = try Self.read(json, as: .transaction) else { Issue.record("kind"); return }
        #expect(transaction.type == ProductType(rawValue: "Weird"))
        #expect(transaction.offerType?.rawValue == 9)
        #expect(transaction.inAppOwnershipType?.rawValue == "LENT")
        #expect(transaction.unknownFields.map(\.key) == ["zeta", "alpha"])
        let text = Self.written(transaction)
        #expect(text == #"{"inAppOwnershipType":"LENT","offerType":9,"transactionId":"1","type":"Weird","zeta":{"b":1,"a":[true,null]},"alpha":1.50}"#)

        let notification = #"{"notificationType":"SOMETHING_NEW","subtype":"ALSO_NEW","data":{"status":42,"newMember":"x"}}"#
        guard case .notification(let value) = try Self.read(notification, as: .notification) else { Issue.record("kind"); return }
        #expect(value.notificationType?.rawValue == "SOMETHING_NEW" && value.subtype?.rawValue == "ALSO_NEW")
        #expect(value.data?.status?.rawValue == 42 && value.data?.unknownFields.map(\.key) == ["newMember"])
    }

    @Test func nullIsAbsent() throws {
        guard case .transaction(let transaction) = try Self.read(#"{"transactionId":"1","price":null,"commitmentInfo":null}"#, as: .transaction)
        else { Issue.record("kind"); return }
        #expect(transaction.price == nil && transaction.commitmentInfo == nil && transaction.unknownFields.isEmpty)
    }

    @Test func fractionalMillisecondsAreAccepted() throws {
        guard case .transaction(let transaction) = try Self.read(#"{"transactionId":"1","signedDate":1697679936056.485}"#, as: .transaction)
        else { Issue.record("kind"); return }
        #expect(abs(Self.milliseconds(try #require(transaction.signedDate)) - 1697679936056.485) < 0.001)
        #expect(Self.written(transaction).contains(#""signedDate":"2023-10-19T01:45:36.056Z""#))
    }

    /// A documented field of another JSON type: wrongValueType, naming the field and the type.
    @Test(arguments: [
        (SignedDataKind.transaction, #"{"transactionId":"1","signedDate":"1748779200000"}"#, "signedDate is a string"),
        (.transaction, #"{"transactionId":"1","price":"9990"}"#, "price is a string"),
        (.transaction, #"{"transactionId":"1","price":9.99}"#, "price is 9.99, not an integer"),
        (.transaction, #"{"transactionId":"1","price":1e3}"#, "price is 1e3, not an integer"),
        (.transaction, #"{"transactionId":"1","price":9223372036854775808}"#, "out of the range of a 64-bit integer"),
        (.transaction, #"{"transactionId":"1","quantity":2147483648}"#, "out of the range of a 32-bit integer"),
        (.transaction, #"{"transactionId":"1","bundleId":42}"#, "bundleId is a number"),
        (.transaction, #"{"transactionId":2000000000000201}"#, "transactionId is a number"),
        (.transaction, #"{"transactionId":"1","isUpgraded":"false"}"#, "isUpgraded is a string"),
        (.transaction, #"{"transactionId":"1","commitmentInfo":[]}"#, "commitmentInfo is an array"),
        (.transaction, #"{"transactionId":"1","commitmentInfo":{"commitmentPrice":"1"}}"#, "commitmentInfo.commitmentPrice is a string"),
        (.transaction, #"{"transactionId":"1","type":1}"#, "type is a number"),
        (.transaction, #"{"transactionId":"1","offerType":"1"}"#, "offerType is a string"),
        (.transaction, #"{"transactionId":"1","expiresDate":1e300}"#, "expiresDate is 1e300"),
        (.transaction, #"{"transactionId":"1","advancedCommerceInfo":{"items":[1]}}"#, "advancedCommerceInfo.items[0] is a number"),
        (.renewalInfo, #"{"autoRenewStatus":"1"}"#, "autoRenewStatus is a string"),
        (.renewalInfo, #"{"eligibleWinBackOfferIds":["a",1]}"#, "eligibleWinBackOfferIds[1] is a number"),
        (.appTransaction, #"{"receiptCreationDate":"2025-06-01T12:00:00Z"}"#, "receiptCreationDate is a string"),
        (.appTransaction, #"{"appAppleId":true}"#, "appAppleId is a boolean"),
        (.notification, #"{"notificationType":"TEST","data":"x"}"#, "data is a string"),
        (.notification, #"{"notificationType":"TEST","data":{"appAppleId":"1234567890"}}"#, "data.appAppleId is a string"),
        (.notification, #"{"notificationType":"TEST","data":{"signedTransactionInfo":5}}"#, "data.signedTransactionInfo is a number"),
        (.notification, #"{"notificationType":"TEST","summary":{"storefrontCountryCodes":"USA"}}"#, "summary.storefrontCountryCodes is a string"),
        (.notification, #"[]"#, "the payload is an array"),
    ])
    func wrongTypesAreRefused(_ kind: SignedDataKind, _ json: String, _ reason: String) {
        do {
            _ = try Self.read(json, as: kind)
            Issue.record("read \(json)")
        } catch {
            #expect(error.code == .wrongValueType)
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test func dateMessageSaysMilliseconds() {
        #expect(throws: ReceiptError.self) { try Self.read(#"{"signedDate":"1"}"#, as: .renewalInfo) }
        do {
            _ = try Self.read(#"{"signedDate":"1"}"#, as: .renewalInfo)
        } catch {
            #expect(error.reason == "signedDate is a string; the payload says milliseconds since 1970 as a number")
        }
    }

    @Test func modelsAreHashable() throws {
        let one = try Self.read(#"{"transactionId":"1","zeta":{"b":1}}"#, as: .transaction)
        let two = try Self.read(#"{"transactionId":"1","zeta":{"b":1}}"#, as: .transaction)
        let three = try Self.read(#"{"transactionId":"1","zeta":{"b":2}}"#, as: .transaction)
        #expect(one == two && one.hashValue == two.hashValue)
        #expect(one != three)
        #expect(Set([one, two, three]).count == 2)
    }
}
