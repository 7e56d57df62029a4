// A session identity's claims are JSON values (ClearanceWire's `JSONValue`): `import ClearanceOAuth2` offers the type.
@_exported import enum ClearanceWire.JSONValue
