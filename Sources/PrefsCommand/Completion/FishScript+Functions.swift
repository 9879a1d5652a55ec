/// The functions of `prefs completion fish` that do not depend on the command table.
extension FishScript {
    static let functions = #"""
        # $argv[1] matches one of the patterns that follow.
        function __prefs_matches -a word
            for pattern in $argv[2..-1]
                string match -q -- $pattern $word; and return 0
            end
            return 1
        end

        # The words typed before the cursor, without the options before the verb that choose the suites.
        function __prefs_words
            set -l words (commandline -opc)
            while test (count $words) -gt 1
                if __prefs_matches $words[2] $__prefs_scope_words
                    set -e words[2]
                else if contains -- $words[2] $__prefs_scope_pairs
                    set -e words[2..3]
                else
                    break
                end
            end
            printf '%s\n' $words
        end

        # The options typed before the verb that choose the suites, for the prefs calls that list names.
        function __prefs_store
            set -l words (commandline -opc)
            set -e words[1]
            while set -q words[1]
                if __prefs_matches $words[1] $__prefs_scope_words
                    printf '%s\n' $words[1]
                    set -e words[1]
                else if contains -- $words[1] $__prefs_scope_pairs; and set -q words[2]
                    printf '%s\n' $words[1..2]
                    set -e words[1..2]
                else
                    break
                end
            end
        end

        # How many words come before the COMMAND of exec (up to and including --).
        function __prefs_dashdash_index
            set -l words (commandline -opc)
            contains -i -- -- $words
        end

        # The verb typed is one of $argv.
        function __prefs_verb
            set -l words (__prefs_words)
            contains -- "$words[2]" $argv
        end

        # No verb typed yet.
        function __prefs_no_verb
            test (count (__prefs_words)) -eq 1
        end

        # What the verb's option spelled $argv[1] takes (flag: nothing), from the table that follows it
        # (__prefs_options: spellings start with -, what they take never does); fails when it is none of them.
        function __prefs_option_kind -a word
            string match -q -- '-*' $word; or return 1
            set -l i (contains -i -- $word $argv[2..-1]); or return 1
            string replace -r -- '\.\.\.$' '' $argv[(math $i + 2)]
        end

        # The operands typed after the verb, NUL-separated: options and their values left out; all words
        # after --.
        function __prefs_operands
            set -l words (__prefs_words)
            set -l options (__prefs_options $words[2])
            set -e words[1..2]
            set -l skip 0
            while set -q words[1]
                set -l w $words[1]
                set -e words[1]
                if test $skip = 1
                    set skip 0
                else if test "$w" = --
                    test (count $words) -gt 0; and printf '%s\0' $words
                    return
                else if test "$w" != -h # help, anywhere before --
                    set -l kind (__prefs_option_kind $w $options)
                    if test "$kind" = typed
                        # [TYPE] VALUE: a scalar type flag takes the word after it too.
                        if contains -- "$words[1]" $__prefs_scalars; and set -q words[2]
                            set -e words[1]
                        end
                        set skip 1
                    else if test -n "$kind"
                        test "$kind" != flag; and set skip 1
                    else if not string match -q -- '--*' $w
                        printf '%s\0' $w
                    end
                end
            end
        end

        # What the word being completed is: a kind of __prefs_operand_kinds, boolean (after a boolean TYPE
        # flag), at-file (after -data or -json, a word starting with @), command (exec, after --);
        # nothing where fish completes an option's value itself.
        function __prefs_kind
            set -l words (__prefs_words)
            set -q words[2]; or return 1
            set -l verb $words[2]
            set -l options (__prefs_options $verb)
            set -l dashdash (contains -i -- -- $words[3..-1])
            if test -z "$dashdash"
                set -l kind (__prefs_option_kind $words[-1] $options)
                if test "$kind" = typed
                    echo typed
                    return
                else if test -n "$kind" -a "$kind" != flag
                    return 1
                end
                # After a typed option's scalar TYPE (read --default -bool), the TYPE's VALUE.
                if set -q words[4]; and test "$(__prefs_option_kind $words[-2] $options)" = typed; and contains -- $words[-1] $__prefs_scalars
                    contains -- $words[-1] $__prefs_bool_types; and echo boolean; or echo text
                    return
                end
            else if __prefs_runs_command $verb
                test (math $dashdash + 2) -eq (count $words); and echo command; or echo file
                return
            end
            set -l kinds (__prefs_operand_kinds $verb)
            set -l count (count (__prefs_operands | string split0))
            set -l kind $kinds[(math $count + 1)]
            if test -z "$kind"; and string match -q -- '*...' $kinds[-1]
                set kind $kinds[-1]
            end
            set kind (string replace -r -- '\.\.\.$' '' $kind)
            if test "$kind" = value
                if contains -- $words[-1] $__prefs_file_types
                    set kind file
                else if contains -- $words[-1] $__prefs_at_file_types; and string match -q -- '@*' (commandline -ct | string unescape)
                    set kind at-file
                else if contains -- $words[-1] $__prefs_bool_types
                    set kind boolean
                end
            end
            echo $kind
        end

        # The word being completed is of one of the kinds given (see __prefs_kind, which every condition
        # asks: its answer is kept for the line it was found for).
        function __prefs_is
            set -l line (commandline -c | string collect)
            if not set -q __prefs_kind_line; or test "$line" != "$__prefs_kind_line"
                set -g __prefs_kind_found (string split ' ' -- (__prefs_kind))
                set -g __prefs_kind_line $line
            end
            contains -- "$__prefs_kind_found[1]" $argv
        end

        # The words a word of kind choice may be.
        function __prefs_choice_words
            printf '%s\n' $__prefs_kind_found[2..-1]
        end

        # Prints, NUL-separated, $argv[1] before each of the other arguments that fish can offer as it is
        # (see above). Names go through arguments, never through a pipe, which string would split at
        # newlines; they are looked at one by one only when one of them must be left out.
        function __prefs_offerable -a head
            set -l names "$head"$argv[2..-1]
            set -q names[1]; or return
            set -l leave '*'\t'*'
            string match -qr -- '^(\\\\|\'|")~' "$(commandline -ct)"; or set -a leave '~*'
            contains -- -- (__prefs_words); or set -a leave '--*' -0 -h
            set -l some 0
            for pattern in $leave
                string match -q -- $pattern $names; and set some 1
            end
            if test $some = 0
                printf '%s\0' $names
                return
            end
            for name in $names
                set -l keep 1
                for pattern in $leave
                    string match -q -- $pattern "$name"; and set keep 0
                end
                test $keep = 1; and printf '%s\0' "$name"
            end
        end

        # The suites, -g and NSGlobalDomain (which domains lists when the global suite holds values), once each.
        function __prefs_suites
            set -l names (prefs (__prefs_store) domains --null 2>/dev/null | string split0)
            set -l global (contains -i -- NSGlobalDomain $names); and set -e names[$global]
            __prefs_offerable '' $names -g NSGlobalDomain
        end

        # The keys of the suite named (more arguments go to prefs read, e.g. --stored), NUL-separated.
        function __prefs_keys
            set -l operands (__prefs_operands | string split0)
            test -n "$operands[1]"; or return
            __prefs_offerable '' (prefs (__prefs_store) read --keys --null $argv -- $operands[1] 2>/dev/null | string split0)
        end

        # For an option whose value is a comma-separated list of keys (key-list N): the keys stored in
        # operand $argv[1] (0: the first) after the items already typed, NUL-separated.
        function __prefs_key_list -a index
            set -l operands (__prefs_operands | string split0)
            set -l from $operands[(math $index + 1)]
            test -n "$from"; or return
            set -l head (commandline -ct | string unescape | string replace -r '[^,]*$' '')
            __prefs_offerable "$head" (prefs (__prefs_store) read --stored --keys --null -- $from 2>/dev/null | string split0)
        end

        # The choices the schema of the suite named gives the key being written a value: the operand
        # before the cursor, or the one before a TYPE flag (prefs describe --choices), NUL-separated.
        function __prefs_choices
            set -l operands (__prefs_operands | string split0)
            set -l key $operands[-1]
            contains -- "$key" $__prefs_choice_types; and set key $operands[-2]
            test -n "$operands[1]"; and test -n "$key"; or return
            prefs (__prefs_store) describe --choices --null -- $operands[1] $key 2>/dev/null
        end

        # For -data @FILE and -json @FILE: @ and the names of the files (a directory with a /) that start
        # with what follows the @ typed, NUL-separated.
        function __prefs_at_files
            set -l head (commandline -ct | string unescape | string sub -s 2)
            for file in "$head"*
                test -d "$file"; and set file "$file/"
                printf '@%s\0' "$file"
            end
        end
        """#
}
