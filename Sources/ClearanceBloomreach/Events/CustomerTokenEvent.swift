import Clearance
import ClearanceStore
import Foundation

/// Something that happened to a ``CustomerTokenSource``'s token: Bloomreach's token events
/// (`TOKEN_ABOUT_TO_EXPIRE`, `TOKEN_EXPIRED`, `TOKEN_REJECTED`, `TOKEN_NOT_PROVIDED`) and what
/// the source does about them. Sent on ``CustomerTokenSource/events`` and posted to
/// `NotificationCenter` as ``notificationName`` with the event in `userInfo[eventKey]`.
///
/// Carries customer ids (whose description hides their values), dates and error codes, never
/// a token.
public enum CustomerTokenEvent: Sendable, CustomStringConvertible {
    /// The name of the notifications posted for every event.
    public static let notificationName = Notification.Name("ClearanceCustomerTokenEvent")
    /// The `userInfo` key holding the ``CustomerTokenEvent``.
    public static let eventKey = "event"

    /// The provider gave a new token; `expiresAt` is read from its `exp` (or `maxAge`).
    case received(CustomerIDs, expiresAt: Date?)
    /// The customer's token was restored from the store instead of asking the provider.
    case restored(CustomerIDs, expiresAt: Date?)
    /// The token is within the source's leeway of `expiresAt`: it is being renewed.
    case aboutToExpire(CustomerIDs, expiresAt: Date)
    /// The token passed `expiredAt` before it was renewed: it was dropped and is being replaced.
    case expired(CustomerIDs, expiredAt: Date)
    /// The server answered 401 to the token: it was dropped, and the request that got the 401
    /// is retried once with a new one.
    case rejected(CustomerIDs)
    /// The provider returned nil or an empty token, or no customer is identified: no request
    /// was sent.
    case notProvided(CustomerIDs)
    /// The provider failed (threw).
    case providerFailed(CustomerIDs, AuthorizationError)
    /// ``CustomerTokenSource/identify(_:)`` or ``CustomerTokenSource/anonymize()`` changed the
    /// customer: the previous customer's token was dropped at once (and cleared from the store).
    case customerChanged(from: CustomerIDs, to: CustomerIDs)
    /// A token fetched for `customer` arrived after the customer changed: it was thrown away,
    /// never applied to a request.
    case discarded(CustomerIDs)
    /// The store could not be read or written; the source goes on in memory.
    case storeFailed(SessionStoreError)

    /// A stable name: `received`, `restored`, `about_to_expire`, `expired`, `rejected`,
    /// `not_provided`, `provider_failed`, `customer_changed`, `discarded`, `store_failed`.
    public var name: String {
        switch self {
        case .received: "received"
        case .restored: "restored"
        case .aboutToExpire: "about_to_expire"
        case .expired: "expired"
        case .rejected: "rejected"
        case .notProvided: "not_provided"
        case .providerFailed: "provider_failed"
        case .customerChanged: "customer_changed"
        case .discarded: "discarded"
        case .storeFailed: "store_failed"
        }
    }

    /// The customer the event is about (for a change, the new one).
    public var customer: CustomerIDs? {
        switch self {
        case .received(let ids, _), .restored(let ids, _), .aboutToExpire(let ids, _), .expired(let ids, _),
             .rejected(let ids), .notProvided(let ids), .providerFailed(let ids, _), .discarded(let ids):
            ids
        case .customerChanged(_, let ids): ids
        case .storeFailed: nil
        }
    }

    public var description: String {
        switch self {
        case .received(let ids, let expiry), .restored(let ids, let expiry):
            "\(name)(\(ids)\(expiry.map { ", expires \($0)" } ?? ""))"
        case .aboutToExpire(let ids, let expiry): "\(name)(\(ids), expires \(expiry))"
        case .expired(let ids, let expiry): "\(name)(\(ids), expired \(expiry))"
        case .rejected(let ids), .notProvided(let ids), .discarded(let ids): "\(name)(\(ids))"
        case .providerFailed(let ids, let error): "\(name)(\(ids), \(error.qualifiedCode))"
        case .customerChanged(let from, let to): "\(name)(\(from) → \(to))"
        case .storeFailed(let error): "\(name)(\(error.qualifiedCode))"
        }
    }
}
