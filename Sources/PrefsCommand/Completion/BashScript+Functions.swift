/// The functions of `prefs completion bash` that do not depend on the command table: they lex the
/// line as bash will read it, and offer names quoted for it.
extension BashScript {
    static let functions = #"""
        # Splits $1, the command line up to the cursor, the way the shell will: _prefs_words gets the words
        # with their quoting removed (the last one is the word being completed, possibly empty),
        # _prefs_raw that last word as typed, and _prefs_state the quoting open at the end: '' (none),
        # "'", '"' or "\$'".
        _prefs_lex() {
            local LC_ALL=C  # byte by byte: quotes and blanks are ASCII, other bytes are copied
            local line=$1 word= raw= state= c e i=0 n=${#1} started=
            _prefs_words=()
            while ((i < n)); do
                c=${line:i:1}
                ((i++))
                if [[ -z $started && -z $state && $c == [$' \t\n'] ]]; then continue; fi
                started=1 raw+=$c
                case $state$c in
                    "''" | '""') state= ;;
                    "'"?) word+=$c ;;
                    '"\') e=${line:i:1}
                        if [[ $e == [\$\`\"\\$'\n'] ]]; then ((i++)); raw+=$e; [[ $e == $'\n' ]] || word+=$e; elif [[ $e ]]; then word+=$c; fi ;;
                    '"'?) word+=$c ;;
                    "\$''") state= ;;
                    "\$'\\") e=${line:i:1}; ((i++)); raw+=$e
                        case $e in
                            [0-7]) e=${line:i-1:3}; e=${e%%[!0-7]*}; ((i += ${#e} - 1)); raw+=${e:1}; printf -v e "\\$e" ;;
                            x) e=${line:i:2}; e=${e%%[!0-9A-Fa-f]*}; ((i += ${#e})); raw+=$e; [[ $e ]] && printf -v e "\\x$e" ;;
                            n) e=$'\n' ;; t) e=$'\t' ;; r) e=$'\r' ;; a) e=$'\a' ;; b) e=$'\b' ;;
                            e | E) e=$'\e' ;; f) e=$'\f' ;; v) e=$'\v' ;;
                        esac
                        word+=$e ;;
                    "\$'"?) word+=$c ;;
                    [$' \t\n']) _prefs_words+=("$word"); word= raw= started= ;;
                    '\') e=${line:i:1}; ((i++)); raw+=$e; [[ $e == $'\n' ]] || word+=$e ;;
                    "'" | '"') state=$c ;;
                    '$') if [[ ${line:i:1} == "'" ]]; then ((i++)); raw+="'"; state="\$'"; else word+=$c; fi ;;
                    *) word+=$c ;;
                esac
            done
            _prefs_words+=("$word")
            _prefs_raw=$raw _prefs_state=$state
        }

        # Adds to COMPREPLY each of the words given that starts with the word typed, quoted as the rest of
        # what readline replaces: the word from its start, from just after an opening quote, or from just
        # after a COMP_WORDBREAKS character such as : or = (readline appends a closing quote). With
        # _prefs_names set, the words are names: one that looks like an option goes after a --.
        _prefs_offer() {
            local word rest quoted guard=
            [[ $_prefs_names && -z $_prefs_dashdash && -z $_prefs_keep && -z $_prefs_state ]] && guard=1
            for word; do
                [[ $word == "$_prefs_cur"* ]] || continue
                rest=${word:${#_prefs_keep}}
                case $_prefs_state in
                    "'") quoted=${rest//\'/\'\\\'\'} ;;
                    '"') quoted=${rest//\\/\\\\}; quoted=${quoted//\$/\\\$}; quoted=${quoted//\`/\\\`}
                        quoted=${quoted//\"/\\\"}; quoted=${quoted//!/\"\\!\"} ;;
                    "\$'") quoted=${rest//\\/\\\\}; quoted=${quoted//\'/\\\'}; quoted=${quoted//$'\n'/\\n}
                        quoted=${quoted//$'\t'/\\t}; quoted=${quoted//$'\r'/\\r} ;;
                    *) quoted=; [[ -z $rest ]] || printf -v quoted %q "$rest" ;;
                esac
                [[ $guard && ($word == --* || $word == -0 || $word == -h) ]] && quoted="-- $quoted"
                COMPREPLY+=("$quoted")
            done
        }

        # Offers the NUL-separated names that `prefs ARGUMENTS...` prints (nothing when it fails).
        _prefs_offer_names() {
            local -a names
            local _prefs_names=1
            mapfile -d '' -t names < <(prefs "${_prefs_store[@]}" "$@" 2>/dev/null)
            _prefs_offer "${names[@]}"
        }

        # The suites, -g and NSGlobalDomain (which domains lists when the global suite holds values), once each.
        _prefs_offer_suites() {
            local -a names
            local name _prefs_names=1
            mapfile -d '' -t names < <(prefs "${_prefs_store[@]}" domains --null 2>/dev/null)
            for name in "${names[@]}"; do [[ $name == NSGlobalDomain ]] || _prefs_offer "$name"; done
            _prefs_offer -g NSGlobalDomain
        }

        # The keys of the suite or file $1 (more arguments go to prefs read, e.g. --stored).
        _prefs_offer_keys() { [[ -n $1 ]] && _prefs_offer_names read --keys --null "${@:2}" -- "$1"; }

        # The choices the schema of the suite ${operands[0]} gives the key being written a value: the
        # operand before the cursor, or the one before a TYPE flag (prefs describe --choices).
        _prefs_offer_choices() {
            local key=${operands[-1]}
            [[ $key == @($_prefs_choice_types) ]] && key=${operands[-2]}
            local -a choices
            mapfile -d '' -t choices < <(prefs "${_prefs_store[@]}" describe --choices --null -- "${operands[0]}" "$key" 2>/dev/null)
            _prefs_offer "${choices[@]}"
        }

        # File and directory names (a directory with a /) starting with the word typed after $1 (a prefix
        # such as @). A word typed with a leading ~ is a home directory: bash completes it itself, and
        # only the files are offered.
        _prefs_offer_files() {
            local head=${1-} file restore
            local -a files
            if [[ -z $head && $_prefs_raw == '~'* ]]; then
                compopt -o filenames
                mapfile -t COMPREPLY < <(compgen -f -- "$_prefs_raw")
                return
            fi
            restore=$(shopt -p nullglob failglob dotglob)
            shopt -s nullglob dotglob; shopt -u failglob
            files=("${_prefs_cur#"$head"}"*)
            eval "$restore"
            for file in "${files[@]}"; do
                [[ -d $file ]] && file+=/
                _prefs_offer "$head$file"
            done
            [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == */ ]] && compopt -o nospace
        }

        # The command line up to the cursor, into _prefs_line (COMP_POINT counts bytes, and ${COMP_LINE:0:N}
        # counts characters except in the C locale).
        _prefs_before_cursor() { local LC_ALL=C; _prefs_line=${COMP_LINE:0:COMP_POINT}; }

        # Comma-separated keys (kind key-list N): those stored in operand N (0: the first), after the items
        # already typed.
        _prefs_offer_key_list() {
            local from=${operands[$1]} head= key
            local -a keys
            [[ $_prefs_cur == *,* ]] && head=${_prefs_cur%,*},
            [[ -n $from ]] && mapfile -d '' -t keys < <(prefs "${_prefs_store[@]}" read --stored --keys --null -- "$from" 2>/dev/null)
            for key in "${keys[@]}"; do _prefs_offer "$head$key"; done
        }

        # What follows a KEY in write and register (kind value): a TYPE flag, a boolean after -bool, a file
        # after -string-file or -data @, else the choices the suite's schema gives the KEY.
        _prefs_offer_value() {
            if [[ $prev == @($_prefs_file_types) ]]; then
                _prefs_offer_files
            elif [[ $prev == @($_prefs_at_file_types) && $_prefs_cur == @* ]]; then
                _prefs_offer_files @
            elif [[ $_prefs_cur == -* ]]; then
                _prefs_offer "${_prefs_types[@]}"
            elif [[ $prev == @($_prefs_bool_types) ]]; then
                _prefs_offer "${_prefs_bools[@]}"
            else
                _prefs_offer_choices
            fi
        }

        # Offers what a word of the kind $1 may be (see _prefs_verb).
        _prefs_complete() {
            local -a choices
            case $1 in
                file) _prefs_offer_files ;;
                suite) _prefs_offer_suites ;;
                domain) _prefs_offer_suites; _prefs_offer_files ;;
                key) _prefs_offer_keys "${operands[0]}" ;;
                stored-key) _prefs_offer_keys "${operands[0]}" --stored ;;
                key-or-file) _prefs_offer_keys "${operands[0]}"; _prefs_offer_files ;;
                value) _prefs_offer_value ;;
                verb) _prefs_offer "${_prefs_verbs[@]}" ;;
                typed) [[ $_prefs_cur == -* ]] && _prefs_offer "${_prefs_scalars[@]}" ;;
                'choice '*) read -r -a choices <<<"${1#choice }"; _prefs_offer "${choices[@]}" ;;
                'key-list '*) _prefs_offer_key_list "${1#key-list }" ;;
            esac
        }

        # Sets kind to what the verb's option spelled $1 takes (flag: nothing); fails when $1 is none of them.
        _prefs_option_kind() {
            local j
            for ((j = 0; j < ${#_prefs_options[@]}; j += 2)); do
                if [[ ${_prefs_options[j]} == "$1" ]]; then
                    kind=${_prefs_options[j + 1]%...}
                    return 0
                fi
            done
            return 1
        }

        """#

    /// `_prefs`: the completion function, reading the table.
    static let completer = #"""
        _prefs() {
            COMPREPLY=()
            local _prefs_line _prefs_words _prefs_raw _prefs_state _prefs_cur _prefs_keep= _prefs_dashdash= _prefs_command=
            local -a _prefs_store=() _prefs_options=() _prefs_operands=()
            _prefs_before_cursor
            _prefs_lex "$_prefs_line"
            local -a words=("${_prefs_words[@]}")
            _prefs_cur=${words[-1]}
            # Readline replaces $2: the whole word, or what follows an opening quote or a COMP_WORDBREAKS
            # character. The part before it stays, with the quoting it leaves open.
            if [[ $2 == "$_prefs_raw" || $_prefs_raw != *"$2" ]]; then
                _prefs_state=
            else
                local raw=$_prefs_raw
                _prefs_lex "${raw%"$2"}"
                _prefs_keep=${_prefs_words[-1]} _prefs_raw=$raw
            fi
            # The options before the verb that choose the suites: given to the prefs calls that list names,
            # then left out.
            while ((${#words[@]} > 2)) && [[ ${words[1]} == @($_prefs_scope_words|$_prefs_scope_pairs) ]]; do
                if [[ ${words[1]} == @($_prefs_scope_words) ]]; then
                    _prefs_store+=("${words[1]}") words=("${words[0]}" "${words[@]:2}")
                elif ((${#words[@]} > 3)); then
                    _prefs_store+=("${words[1]}" "${words[2]}") words=("${words[0]}" "${words[@]:3}")
                else
                    return # the option's value itself
                fi
            done
            local cur=$_prefs_cur count=${#words[@]}
            if ((count == 2)); then
                _prefs_offer "${_prefs_verbs[@]}" "${_prefs_global[@]}"
                return
            fi
            local verb=${words[1]} prev=${words[count - 2]} i word kind
            _prefs_verb "$verb" || return
            # The operands typed so far: the words that are neither the verb's options nor their values, and
            # every word after a --.
            local -a operands=()
            for ((i = 2; i < count - 1; i++)); do
                word=${words[i]}
                if [[ $word == -- ]]; then
                    operands+=("${words[@]:i+1:count-i-2}") _prefs_dashdash=$i
                    break
                fi
                [[ $word == -h ]] && continue # help, anywhere before --
                if _prefs_option_kind "$word"; then
                    case $kind in
                        flag) ;;
                        typed) ((i++)); [[ ${words[i]} == @($_prefs_scalar_types) ]] && ((i++)) ;; # [TYPE] VALUE
                        *) ((i++)) ;;
                    esac
                elif [[ $word != --* ]]; then
                    operands+=("$word")
                fi
            done
            if [[ -z $_prefs_dashdash ]]; then
                # After a typed option's scalar TYPE (read --default -bool), the TYPE's VALUE.
                if _prefs_option_kind "${words[count - 3]}" && [[ $kind == typed && $prev == @($_prefs_scalar_types) ]]; then
                    [[ $prev == @($_prefs_bool_types) ]] && _prefs_offer "${_prefs_bools[@]}"
                    return
                fi
                # After an option that takes a value, that value.
                if _prefs_option_kind "$prev" && [[ $kind != flag ]]; then
                    _prefs_complete "$kind"
                    return
                fi
                # The verb's options: the long ones for --, the short ones (-0) for - (then the operands).
                if [[ $cur == -* ]]; then
                    local -a spellings=()
                    for ((i = 0; i < ${#_prefs_options[@]}; i += 2)); do
                        word=${_prefs_options[i]}
                        [[ ($cur == --* && $word == --*) || ($cur != --* && $word == -? ) ]] && spellings+=("$word")
                    done
                    _prefs_offer "${spellings[@]}"
                    [[ $cur == --* ]] && return
                fi
            elif [[ $_prefs_command ]]; then
                # After --, a COMMAND (found on PATH), then its arguments (files).
                if ((_prefs_dashdash == count - 2)); then
                    local -a commands
                    mapfile -t commands < <(compgen -c -- "$cur" | sort -u)
                    _prefs_offer "${commands[@]}"
                else
                    _prefs_offer_files
                fi
                return
            fi
            # The operand: its kind at this position, or the last one when it goes on.
            local position=${#operands[@]} last=
            ((${#_prefs_operands[@]})) && last=${_prefs_operands[-1]}
            kind=${_prefs_operands[position]-}
            [[ -z $kind && $last == *... ]] && kind=$last
            _prefs_complete "${kind%...}"
        }
        complete -F _prefs prefs
        """#
}
