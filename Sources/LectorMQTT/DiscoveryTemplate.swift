extension Discovery {
    /// The Jinja templates of the discovery configs. Each one renders something valid
    /// for whatever arrives on its topic: a payload that is not a JSON object (the empty
    /// retained message that clears a removed camera's state), a status without
    /// `recognize_fps` (lectord unreachable) or a rotation it does not know gives
    /// `None`, which Home Assistant shows as unknown, instead of a template error.
    enum Template {
        /// `value_json` when it is a JSON object, else an empty one.
        static let object = "{% set s = value_json if value_json is defined and value_json is mapping else {} %}"

        /// The text sensor's state: the text, or its first 254 characters and `…` when
        /// it is longer than HA keeps (the attributes have all of it).
        static let text = "{% if value | length > \(maximumState) %}{{ value[:\(maximumState - 1)] }}…"
            + "{% else %}{{ value }}{% endif %}"

        /// The text sensor's attributes: the whole text, its lines, its length and
        /// whether the state is cut.
        static let textAttributes = "{{ {'text': value, 'lines': value.splitlines(), 'characters': value | length, "
            + "'cut': value | length > \(maximumState)} | tojson }}"

        /// Frames recognized per second while the camera streams, else unknown.
        static let recognizeFPS = object
            + "{{ s.get('recognize_fps', 'None') if s.get('state') == 'streaming' else 'None' }}"

        /// ON while the camera streams, OFF in any other state, unknown without a status.
        static let streaming = object
            + "{{ ('ON' if s.get('state') == 'streaming' else 'OFF') if s.get('state') else 'None' }}"

        /// The rotation select's state from an ORIENTATION reply: `auto` when the turn is
        /// found from the text, else the degrees.
        static let rotation = object
            + "{% set o = s.get('orientation') %}{% if o is mapping and o.get('auto') %}auto"
            + "{% elif s.get('rotation') in [0, 90, 180, 270] %}{{ s.get('rotation') }}{% else %}None{% endif %}"

        /// The live text select's state: its option, or unknown for anything else.
        static let liveText = "{{ value if value in ["
            + LiveTextMode.allCases.map { "'\($0.rawValue)'" }.joined(separator: ", ") + "] else 'None' }}"

        /// The rotation select's command: the members of an ORIENTATION request.
        static let rotationCommand = #"{% if value == 'auto' %}{"rotation":"auto"}"#
            + #"{% else %}{"rotation":{{ value | int(0) }}}{% endif %}"#
    }
}
