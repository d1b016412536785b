// The shapes most run flags take (a number in a range, one of a set of names, a switch, a list
// that varies), so that each catalog entry says only what is its own.

extension RunFlag {
    typealias PlanPath<T> = WritableKeyPath<BenchmarkPlan, T> & Sendable

    /// A whole number in `range`, stored at `path`, always said back (a build with other defaults
    /// runs the same benchmark).
    static func integer(_ name: String, value: String? = nil, group: RunFlagGroup, help: String, range: ClosedRange<Int>,
                        default defaultValue: Int, at path: PlanPath<Int>) -> RunFlag {
        RunFlag(name, value: value, group: group, help: help, range: FlagRanges.help(range), default: String(defaultValue),
                apply: { text, target throws(PlanError) in
                    target.plan[keyPath: path] = try whole(text ?? String(defaultValue), "--" + name, in: range)
                },
                words: { plan in ["--" + name, String(plan[keyPath: path])] })
    }

    /// A whole number in `range` whose absence means something of its own (nil), said only when given.
    static func optionalInteger(_ name: String, value: String? = nil, group: RunFlagGroup, help: String, range: ClosedRange<Int>?,
                                rangeText: String? = nil, at path: PlanPath<Int?>) -> RunFlag {
        RunFlag(name, value: value, group: group, help: help, range: rangeText ?? range.map(FlagRanges.help),
                apply: { text, target throws(PlanError) in
                    guard let text else { return }
                    target.plan[keyPath: path] = try whole(text, "--" + name, in: range ?? Int.min...Int.max)
                },
                words: { plan in plan[keyPath: path].map { ["--" + name, String($0)] } ?? [] })
    }

    /// One of a type's names, stored at `path`, always said back.
    static func choice<T: RawRepresentable & CaseIterable & Sendable>(_ name: String, value: String? = nil, group: RunFlagGroup,
                                                                     help: String, default defaultValue: T, at path: PlanPath<T>) -> RunFlag
    where T.RawValue == String {
        RunFlag(name, value: value, group: group, help: help, default: defaultValue.rawValue,
                completion: .values(T.allCases.map(\.rawValue)),
                apply: { text, target throws(PlanError) in target.plan[keyPath: path] = try named(text ?? defaultValue.rawValue, "--" + name) },
                words: { plan in ["--" + name, plan[keyPath: path].rawValue] })
    }

    /// A switch that lands on the plan; said only when on (builds before it knew no such flag).
    static func toggle(_ name: String, group: RunFlagGroup, help: String, at path: PlanPath<Bool?>) -> RunFlag {
        RunFlag(name, .flag, group: group, help: help,
                apply: { text, target throws(PlanError) in if text == "true" { target.plan[keyPath: path] = true } },
                words: { plan in plan[keyPath: path] == true ? ["--" + name] : [] })
    }

    /// A switch for `imgbench run` itself (output, caching), never part of the plan.
    static func outputToggle(_ name: String, group: RunFlagGroup, help: String, _ set: @escaping @Sendable (inout RunOutput) -> Void) -> RunFlag {
        RunFlag(name, .flag, group: group, help: help,
                apply: { text, target throws(PlanError) in if text == "true" { set(&target.output) } },
                words: { _ in [] })
    }

    /// A list whose two or more values make a dimension of the matrix: the first value goes to the
    /// settings, the list to the plan's variations. `say` spells a single value (the default:
    /// `--name value`); `[]` leaves it unsaid.
    static func varied(_ name: String, value: String? = nil, group: RunFlagGroup, help: String, range: String? = nil,
                       default defaultValue: String, completion: Completion = .none, bare: String? = nil, inverted: String? = nil,
                       dimension: Dimension, say: (@Sendable (String) -> [String])? = nil) -> RunFlag {
        let flag = "--" + name
        return RunFlag(name, value: value, group: group, help: help, range: range, default: defaultValue, completion: completion,
                       bare: bare, inverted: inverted, dimension: dimension,
                       apply: { text, target throws(PlanError) in
                           let text = text ?? defaultValue
                           let values = try RunOptions.list(text, flag: flag).map { item throws(PlanError) in try dimension.canonical(item) }
                           guard Set(values).count == values.count else { throw PlanError("\(flag) '\(text)' names a value twice") }
                           dimension.apply(values[0], &target.plan.settings)
                           if values.count > 1, let varied = PolicyDimension(rawValue: dimension.column) {
                               target.plan.variations.append(PolicyVariation(dimension: varied, values: values))
                           }
                       },
                       words: { plan in
                           if let variation = plan.variations.first(where: { $0.dimension.rawValue == dimension.column }) {
                               return [flag, variation.values.joined(separator: ",")]
                           }
                           let value = dimension.value(plan.settings)
                           return say?(value) ?? [flag, value]
                       })
    }

    /// A dimension over a type's names (`--cancel none,offscreen`).
    static func namedDimension<T: RawRepresentable & CaseIterable & SendableMetatype>(_ column: String, label: String, flag: String,
                                                                   at path: WritableKeyPath<RunSettings, T> & Sendable) -> Dimension
    where T.RawValue == String {
        Dimension(column: column, label: label, unit: "",
                  canonical: { text throws(PlanError) in (try named(text, flag) as T).rawValue },
                  apply: { value, settings in if let parsed = T(rawValue: value) { settings[keyPath: path] = parsed } },
                  value: { settings in settings[keyPath: path].rawValue })
    }

    /// A spec parser's error as a plan error (their messages already name the flag, or get `prefix`).
    static func spec<T, E: Error & CustomStringConvertible>(_ prefix: String = "", _ body: () throws(E) -> T) throws(PlanError) -> T {
        do {
            return try body()
        } catch {
            throw PlanError(prefix + error.description)
        }
    }

    /// A whole number, or an error naming the flag and its range.
    static func whole(_ text: String, _ flag: String, in range: ClosedRange<Int>) throws(PlanError) -> Int {
        guard let value = Int(text) else { throw PlanError("\(flag): '\(text)' is not a whole number") }
        return try FlagRanges.check(value, in: range, flag)
    }

    /// A number of seconds and the like, or an error naming the flag and its range.
    static func real(_ text: String, _ flag: String, in range: ClosedRange<Double>) throws(PlanError) -> Double {
        guard let value = Double(text) else { throw PlanError("\(flag): '\(text)' is not a number") }
        return try FlagRanges.check(value, in: range, flag)
    }

    /// A share, as `5%` or `0.05`, or an error naming the flag and its range.
    static func share(_ text: String, _ flag: String, in range: ClosedRange<Double>) throws(PlanError) -> Double {
        let percent = text.hasSuffix("%")
        guard let number = Double(percent ? String(text.dropLast()) : text), number.isFinite else {
            throw PlanError("\(flag): '\(text)' is not a share (like 1% or 0.01)")
        }
        let value = percent ? number / 100 : number
        guard range.contains(value) else {
            throw PlanError("\(flag) must be between \(FlagRanges.text(range.lowerBound * 100))% and \(FlagRanges.text(range.upperBound * 100))% (got \(text))")
        }
        return value
    }

    /// One of a type's names, or an error listing them.
    static func named<T: RawRepresentable & CaseIterable>(_ text: String, _ flag: String) throws(PlanError) -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else {
            throw PlanError("\(flag): unknown value '\(text)' (valid: \(T.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return value
    }
}
