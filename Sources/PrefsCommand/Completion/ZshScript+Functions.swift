/// The functions of `prefs completion zsh` that do not depend on the command table.
extension ZshScript {
    static let functions = #"""
        # Offers the names $argv[3,-1] under the tag $1 described as $2.
        _prefs_names() {
            local tag=$1 description=$2 expl
            local -a names=("${@[3,-1]}") optionlike
            if [[ -z $dashdash ]]; then
                optionlike=(${(M)names:#(--*|-0|-h)})
                names=(${names:#(--*|-0|-h)})
            fi
            _wanted $tag expl $description compadd -a names
            (( $#optionlike )) && _wanted $tag expl $description compadd -P '-- ' -a optionlike
        }

        # The suites, -g and NSGlobalDomain (which domains lists when the global suite holds values), once each.
        _prefs_suites() {
            local -a names=(${(0)"$(prefs $_prefs_store domains --null 2>/dev/null)"} -g NSGlobalDomain)
            _prefs_names suites suite "${(@u)names}"
        }

        # The keys of the suite or file $1 (more arguments go to prefs read, e.g. --stored).
        _prefs_keys() {
            [[ -n $1 ]] || return 1
            _prefs_names keys key ${(0)"$(prefs $_prefs_store read --keys --null "${@[2,-1]}" -- "$1" 2>/dev/null)"}
        }

        # The stored keys of the suite or file $1, for a comma-separated list (_sequence passes the
        # compadd options that follow).
        _prefs_key_list() {
            local from=$1
            local -a keys
            shift
            keys=(${(0)"$(prefs $_prefs_store read --stored --keys --null -- "$from" 2>/dev/null)"})
            compadd "$@" -a keys
        }

        # The choices the schema of the suite $operands[1] gives the key being written a value: the
        # operand before the cursor, or the one before a TYPE flag (prefs describe --choices).
        _prefs_choices() {
            local key=$operands[-1]
            [[ $key == ($~choice_types) ]] && key=$operands[-2]
            local -a choices
            choices=(${(0)"$(prefs $_prefs_store describe --choices --null -- "$operands[1]" "$key" 2>/dev/null)"})
            (( $#choices )) && compadd -a choices
        }

        # What follows a KEY in write and register (kind value): a TYPE flag, a boolean after -bool, a file
        # after -string-file or -data @, else the choices the suite's schema gives the KEY.
        _prefs_value() {
            local prev=${(Q)words[CURRENT-1]}
            if [[ $prev == ($~file_types) ]]; then
                _files
            elif [[ $prev == ($~at_file_types) && $PREFIX == @* ]]; then
                compset -P @
                _files
            elif [[ $PREFIX == -* ]]; then
                compadd -a types
            elif [[ $prev == ($~bool_types) ]]; then
                compadd -a bools
            else
                _prefs_choices
            fi
        }

        # Offers what a word of the kind $1 may be (see _prefs_verb).
        _prefs_complete() {
            local expl
            local -a choices
            case $1 in
                (file) _files ;;
                (suite) _prefs_suites ;;
                (domain) _prefs_suites; _files ;;
                (key) _prefs_keys "$operands[1]" ;;
                (stored-key) _prefs_keys "$operands[1]" --stored ;;
                (key-or-file) _prefs_keys "$operands[1]"; _files ;;
                (value) _prefs_value ;;
                (verb) _describe -t verbs 'verb' verbs ;;
                (typed) [[ $PREFIX == -* ]] && compadd -a scalars ;;
                ('choice '*) choices=(${=1#choice }); _wanted values expl value compadd -a choices ;;
                ('key-list '*) _sequence _prefs_key_list "$operands[$(( ${1#key-list } + 1 ))]" ;;
                (*) return 1 ;;
            esac
        }

        # Sets kind to what the verb's option spelled $1 takes (flag: nothing); fails when $1 is none of them.
        _prefs_option_kind() {
            local i
            local -a spellings
            for (( i = 1; i <= $#verb_options; i += 3 )); do
                spellings=(${=verb_options[i]})
                (( ${spellings[(Ie)$1]} )) || continue
                kind=${verb_options[i+1]%...}
                return 0
            done
            return 1
        }

        # Offers the verb's options that the word typed may start (for --, the long ones; for -, the short
        # ones), but not one already given unless it may be given again.
        _prefs_options() {
            local i spelling
            local -a offers
            for (( i = 1; i <= $#verb_options; i += 3 )); do
                if [[ $verb_options[i+1] != *... ]]; then
                    for spelling in ${=verb_options[i]}; do (( ${given[(Ie)$spelling]} )) && continue 2; done
                fi
                for spelling in ${=verb_options[i]}; do
                    [[ ($PREFIX == --* && $spelling == --*) || ($PREFIX != --* && $spelling == -?) ]] && offers+=("$spelling:$verb_options[i+2]")
                done
            done
            _describe -t options 'option' offers
        }

        # The operands typed before the cursor, unquoted, into $operands (the verb's options and their values
        # left out), the options into $given, and the position of a -- into $dashdash. Call it after the verb
        # has been shifted off $words.
        _prefs_operands() {
            local i word
            operands=() given=() dashdash=
            for (( i = 2; i < CURRENT; i++ )); do
                word=${(Q)words[i]}
                if [[ $word == -- ]]; then
                    operands+=("${(@Q)words[i+1,CURRENT-1]}")
                    dashdash=$i
                    break
                fi
                [[ $word == -h ]] && continue # help, anywhere before --
                if _prefs_option_kind $word; then
                    given+=($word)
                    case $kind in
                        (flag) ;;
                        (typed) (( i++ )); [[ ${(Q)words[i]} == ($~scalar_types) ]] && (( i++ )) ;; # [TYPE] VALUE
                        (*) (( i++ )) ;;
                    esac
                elif [[ $word == --*=* ]] && _prefs_option_kind ${word%%=*}; then
                    given+=(${word%%=*})
                elif [[ $word != --* ]]; then
                    operands+=("$word")
                fi
            done
        }

        """#

    /// `_prefs`: the completion function, reading the table.
    static let completer = #"""
        _prefs() {
            local -a verbs global types scalars bools verb_options kinds operands given _prefs_store
            local scalar_types choice_types bool_types file_types at_file_types scope_words scope_pairs
            local verb kind prev command= dashdash=
            _prefs_table
            # The options before the verb that choose the suites: given to the prefs calls that list names,
            # then left out.
            while (( CURRENT > 2 )) && [[ ${(Q)words[2]} == ($~scope_words|$~scope_pairs) ]]; do
                if [[ ${(Q)words[2]} == ($~scope_words) ]]; then
                    _prefs_store+=(${(Q)words[2]}); words[2]=(); (( CURRENT-- ))
                elif (( CURRENT > 3 )); then
                    _prefs_store+=(${(Q)words[2]} ${(Q)words[3]}); words[2,3]=(); (( CURRENT -= 2 ))
                else
                    return 1 # the option's value itself
                fi
            done
            if (( CURRENT == 2 )); then
                _describe -t verbs 'verb' verbs
                _describe -t global-options 'option' global
                return
            fi
            verb=${(Q)words[2]}
            _prefs_verb $verb || return 1
            # From here on the verb is the command word, so positions count from the first operand.
            shift words
            (( CURRENT-- ))
            _prefs_operands
            prev=${(Q)words[CURRENT-1]}
            if [[ -z $dashdash ]]; then
                # After a typed option's scalar TYPE (read --default -bool), the TYPE's VALUE.
                if (( CURRENT > 2 )) && _prefs_option_kind "${(Q)words[CURRENT-2]}" && [[ $kind == typed && $prev == ($~scalar_types) ]]; then
                    [[ $prev == ($~bool_types) ]] && compadd -a bools
                    return
                fi
                # The value of an option: after it, or after its = (--format=xml).
                if [[ $PREFIX == --*=* ]] && _prefs_option_kind ${PREFIX%%=*} && [[ $kind != flag ]]; then
                    compset -P '*='
                    _prefs_complete $kind
                    return
                fi
                if _prefs_option_kind "$prev" && [[ $kind != flag ]]; then
                    _prefs_complete $kind
                    return
                fi
                # The verb's options (then, for a short one, the operands).
                if [[ $PREFIX == -* ]]; then
                    _prefs_options
                    [[ $PREFIX == --* ]] && return
                fi
            elif [[ -n $command ]]; then
                # After --, a COMMAND and its arguments, completed as a command line of their own.
                words=("${(@)words[dashdash+1,-1]}")
                (( CURRENT -= dashdash ))
                _normal
                return
            fi
            # The operand: its kind at this position, or the last one when it goes on.
            kind=${kinds[$#operands + 1]}
            [[ -z $kind && $kinds[-1] == *... ]] && kind=$kinds[-1]
            _prefs_complete ${kind%...}
        }

        _prefs "$@"
        """#
}
