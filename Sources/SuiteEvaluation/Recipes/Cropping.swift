import Evaluation
/// Test 1: the query is a crop of the reference.
public struct Cropping: QueryRecipe {
    public static let kind = "cropping"
    public init() {}
}
