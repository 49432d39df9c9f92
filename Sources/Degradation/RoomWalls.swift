import Foundation

/// How a room's reverberation changes with frequency: the T30 of each octave band (125 Hz to 8 kHz) of a cited
/// room, which a `RoomStage` scales so that its mid-frequency T30 (the mean of the 500 Hz and 1 kHz bands, as
/// ISO 3382-2's T_mid) is the one asked for, with air absorbing as at 20 °C and 30-50 % humidity. `flat`: every
/// frequency alike and no air, the model until November 2026 (its rooms had no `walls` field, so a degraded query's
/// cache key, which holds the stage as written, never meets one of theirs).
public enum RoomWalls: String, CaseIterable, Sendable, Codable {
    /// Furnished living rooms: the mean of 50 British living rooms, 0.69 s at 125 Hz falling to 0.40 s at 8 kHz
    /// (Jackson & Leventhall 1972, "The acoustics of domestic rooms", Applied Acoustics 5, as quoted in Everest &
    /// Pohlmann, Master Handbook of Acoustics, fig. 11-18). The bands between fall evenly in log frequency (our
    /// reading: the source gives the ends; Díaz & Pedrero 2008, 11,687 furnished rooms, find the times
    /// "decrease fairly uniformly as the frequency increases").
    case furnished
    /// A hall with its audience: 1.3, 1.2, 1.2, 1.2, 1.1, 1.0, 0.9 s, and `empty`, the same hall without it:
    /// 2.4, 2.4, 2.1, 2.0, 1.9, 1.7, 1.5 s (apf.architexturez.net/file/36055, Table I: times its designers
    /// computed by Sabine's formula from its materials, audience and air; the table's measured row is not
    /// quoted, so these are a cited design, not a measurement). A room full of people absorbs as its audience.
    case occupied, empty
    /// Every frequency alike, no air.
    case flat

    /// The cited T30 in seconds of each band from 125 Hz to 8 kHz.
    var cited: [Double] {
        switch self {
        case .furnished: (0..<7).map { 0.69 * pow(0.40 / 0.69, Double($0) / 6) }
        case .occupied: [1.3, 1.2, 1.2, 1.2, 1.1, 1.0, 0.9]
        case .empty: [2.4, 2.4, 2.1, 2.0, 1.9, 1.7, 1.5]
        case .flat: [1, 1, 1, 1, 1, 1, 1]
        }
    }

    /// Each band's T30 over the mid-frequency T30, one per band of `OctaveBands.centres`; above 8 kHz on the
    /// line through the last two in log frequency (as pyroomacoustics extends a material's table).
    public var shape: [Double] {
        let cited = cited, mid = (cited[2] + cited[3]) / 2
        var shape = cited.map { $0 / mid }
        while shape.count < OctaveBands.most { shape.append(max(0.1, 2 * shape[shape.count - 1] - shape[shape.count - 2])) }
        return shape
    }

    /// Air's energy attenuation per metre in each band: pyroomacoustics 0.8.3's table for 20 °C and 30-50 %
    /// humidity (from Vorländer, Auralization, 2008, annex), 125 Hz to 8 kHz, and 16 kHz extended as it
    /// extends it; none for `flat`.
    public var air: [Double] {
        self == .flat ? [] : [0.1, 0.3, 0.6, 1.0, 1.9, 5.8, 20.3, 34.8].map { $0 * 1e-3 }
    }
}
