import ClearanceStore

/// A store that lives as long as the process: for tests and short-lived tools (an
/// `InMemoryStore` of ``StoredSession``s; `InMemoryStore.current` is what it holds now).
public typealias InMemorySessionStore = InMemoryStore<StoredSession>

extension InMemoryStore: SessionStore where Value == StoredSession {}
