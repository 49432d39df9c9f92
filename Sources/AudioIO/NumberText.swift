/// A number as text that reads back to the same number: whole numbers without a fraction ("1234567", not
/// "1.23457e+06" as `%g` gives, nor "1234567.0"), others by Swift's shortest round-trip form ("0.35", "1e-10").
/// Never traps: values beyond `Int`'s range are written the same way.
public func exactText(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return "\(value)"
}
