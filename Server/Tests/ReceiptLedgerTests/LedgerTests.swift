import Testing
@testable import ReceiptLedger
