// The key and the error of every Clearance store live in ClearanceStore (the generic secure
// store); OAuth2's session stores have always offered them, so `import ClearanceOAuth2` still does.
@_exported import struct ClearanceStore.SessionStoreKey
@_exported import enum ClearanceStore.SessionStoreError
