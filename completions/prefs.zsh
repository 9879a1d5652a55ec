#compdef prefs
# zsh completion for prefs: verbs, options, type flags, suite names and the keys of the named suite.
# Install this file as _prefs in a directory of $fpath.
#
# Suite names and keys are data: they may hold spaces, quotes, $(...), colons or newlines. They come
# from prefs NUL-separated (--null) and go to compadd as they are, which quotes them for the command
# line; the operands typed before are unquoted before prefs sees them. A name prefs would take for
# an option (-0, or one starting with --) is offered after a -- unless one was typed.

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
# operand before the cursor, or the one before a scalar type flag (prefs describe --choices).
_prefs_choices() {
    local key=$operands[-1]
    [[ $key == -(string|int|integer|float|date|data) ]] && key=$operands[-2]
    local -a choices
    choices=(${(0)"$(prefs $_prefs_store describe --choices --null -- "$operands[1]" "$key" 2>/dev/null)"})
    (( $#choices )) && compadd -a choices
}

_prefs_suites_and_files() {
    _prefs_suites
    _files
}

# The operands typed before the cursor, unquoted, into $operands (options and the values of the
# options that take one left out: --keys takes one for export and migrate, not for read), and the
# position of a -- into $dashdash. Call it after the verb has been shifted off $words.
_prefs_operands() {
    local i word
    operands=() dashdash=
    for (( i = 2; i < CURRENT; i++ )); do
        word=${(Q)words[i]}
        case $word in
            --) operands+=("${(@Q)words[i+1,CURRENT-1]}"); dashdash=$i; break ;;
            --format|--defaults|--if-equals|--delete|--from|--bool-keys|--rename|--timeout|--grace|--schema|--exec|--match) (( i++ )) ;;
            --keys) [[ $verb == read ]] || (( i++ )) ;;
            --default) (( i++ )); [[ ${(Q)words[i]} == ($~scalars) ]] && (( i++ )) ;;
            -0) [[ $verb == (read|domains|find) ]] || operands+=("$word") ;;
            -h) ;;
            --*) ;;
            *) operands+=("$word") ;;
        esac
    done
}

_prefs() {
    local -a verbs types operands
    local scalars
    local dashdash
    verbs=(
        'read:print a value, a suite, or every suite'
        'read-type:print the type of a value'
        'write:set values'
        'delete:remove a key, or the whole suite'
        'rename:move a value to a new key'
        'register:record registered defaults'
        'reset:remove stored values so the registered defaults show again'
        'domains:list the suites'
        'find:find suites, keys and string values'
        'lint:check property-list and JSON files'
        'export:write a suite or a file in another format'
        'import:merge a plist or JSON dictionary into a suite, all or nothing'
        'migrate:bring settings in from a plist, JSON, INI or .env file or a suite'
        'dump:write every suite as one lossless document, for load (a backup)'
        'load:restore what dump wrote, each suite all or nothing, with a report'
        'watch:print each change of a suite'\''s values as it happens'
        'exec:run a command with the suites'\'' values in its environment'
        'edit:edit a suite in $VISUAL or $EDITOR'
        'describe:print a suite'\''s schema'
        'check:verify the external values of suites'
        'gc:remove orphan blobs from external storage'
        'help:show help for prefs or for one verb'
    )
    types=(-string -int -integer -float -bool -boolean -date -data -json -array -array-add -array-insert -dict -dict-add -int-add -float-add -string-file)
    scalars='-string|-int|-integer|-float|-bool|-boolean|-date|-data|-json'
    # --store URL, -currentHost and -host NAME before the verb: given to the prefs calls that list
    # names, then left out.
    local -a _prefs_store
    while (( CURRENT > 2 )) && [[ $words[2] == --store || $words[2] == --store=* || $words[2] == -currentHost || $words[2] == -host ]]; do
        if [[ $words[2] == --store=* || $words[2] == -currentHost ]]; then
            _prefs_store+=(${(Q)words[2]}); words[2]=(); (( CURRENT-- ))
        elif (( CURRENT > 3 )); then
            _prefs_store+=(${(Q)words[2]} ${(Q)words[3]}); words[2,3]=(); (( CURRENT -= 2 ))
        else
            return 1
        fi
    done
    if (( CURRENT == 2 )); then
        _describe -t verbs 'verb' verbs
        compadd -- --help -h --version --store -currentHost -host
        return
    fi
    local verb=$words[2]
    # From here on the verb is the command word, so positions count from the first operand.
    shift words
    (( CURRENT-- ))
    _prefs_operands
    if [[ -n $dashdash ]]; then
        # _arguments would count the -- as an operand.
        words[dashdash]=()
        (( CURRENT-- ))
    fi
    case $verb in
        read)
            # --default takes a scalar TYPE and its VALUE, or one VALUE: the VALUE after a TYPE is
            # left out for _arguments, which counts one word for the option.
            local i
            for (( i = 2; i < CURRENT - 1; i++ )); do
                [[ $words[i] == --default && ${(Q)words[i+1]} == ($~scalars) ]] || continue
                if (( i + 2 == CURRENT )); then
                    [[ $words[i+1] == -bool* ]] && compadd true false yes no
                    return
                fi
                words[i+2]=(); (( CURRENT-- ))
            done
            _arguments -S '--json[print JSON]' '--keys[print the keys, one per line]' '--match[with --keys, only the keys GLOB matches]:glob: ' \
                '--raw[print a string'\''s or data value'\''s bytes exactly]' \
                '(-0 --null)'{-0,--null}'[with --keys, end each key with NUL]' \
                '--origin[say where each value came from]' '--stored[only the stored values]' \
                '*--defaults[registered defaults for this run]:defaults file:_files' \
                '--format[write the value as a document]:format:(xml binary openstep json typed-json)' \
                '--lossy[with JSON, write dates and data as strings]' '--compact[write JSON on one line]' \
                '--default[print VALUE when the key or suite is absent]:type or value:->default' '--help[show help]' \
                '1:domain:_prefs_suites' '2:key:->key' && return
            [[ $state == key ]] && _prefs_keys "$operands[1]"
            [[ $state == default && $PREFIX == -* ]] && compadd -- ${(s:|:)scalars} ;;
        read-type)
            _arguments -S '--origin[say where the value came from]' '--stored[only the stored values]' \
                '*--defaults[registered defaults for this run]:defaults file:_files' '--help[show help]' \
                '1:domain:_prefs_suites' '2:key:->key' && return
            [[ $state == key ]] && _prefs_keys "$operands[1]" ;;
        delete)
            _arguments -S '--exit-code[exit 3 when something changed]' '--dry-run[print what would change]' '--help[show help]' \
                '1:domain:_prefs_suites' '2:key:->key' '*:key:->key' && return
            [[ $state == key ]] && _prefs_keys "$operands[1]" ;;
        rename)
            _arguments -S '--exit-code[exit 3 when something changed]' '--dry-run[print what would change]' \
                '(--no-schema)--schema[check against this schema file]:schema file:_files' \
                '(--schema)--no-schema[store without checking the schema]' '--help[show help]' \
                '1:domain:_prefs_suites' '2:key:->key' '*:key:->key' && return
            [[ $state == key ]] && _prefs_keys "$operands[1]" ;;
        reset)
            _arguments -S '--exit-code[exit 3 when something changed]' '--dry-run[print what would change]' '--help[show help]' \
                '1:domain:_prefs_suites' '*:stored key:->key' && return
            [[ $state == key ]] && _prefs_keys "$operands[1]" --stored ;;
        register)
            if [[ $PREFIX == --* ]]; then
                compadd -- --replace --delete --schema --no-schema --exit-code --dry-run --help
            elif [[ $words[CURRENT-1] == --schema ]]; then
                _files
            elif [[ $words[CURRENT-1] == --delete ]]; then
                _prefs_keys "$operands[1]"
            elif (( $#operands == 0 )); then
                _prefs_suites
            elif (( $#operands == 1 )); then
                _prefs_keys "$operands[1]"
                _files
            elif [[ $PREFIX == -* ]]; then
                compadd -a types
            elif [[ $words[CURRENT-1] == -bool* ]]; then
                compadd true false yes no
            else
                _prefs_choices
            fi ;;
        write)
            if [[ $PREFIX == --* ]]; then
                compadd -- --exit-code --dry-run --if-absent --if-equals --external --inline --schema --no-schema --help
            elif [[ $words[CURRENT-1] == --if-equals ]]; then
                return 1
            elif [[ $words[CURRENT-1] == --schema ]]; then
                _files
            elif [[ $words[CURRENT-1] == -string-file ]]; then
                _files
            elif [[ $words[CURRENT-1] == -(data|json) && $PREFIX == @* ]]; then
                compset -P @
                _files
            elif (( $#operands == 0 )); then
                _prefs_suites
            elif (( $#operands == 1 )); then
                _prefs_keys "$operands[1]"
            elif [[ $PREFIX == -* ]]; then
                compadd -a types
            elif [[ $words[CURRENT-1] == -bool* ]]; then
                compadd true false yes no
            else
                _prefs_choices
            fi ;;
        domains) _arguments -S '(-0 --null)'{-0,--null}'[end each name with NUL]' '--help[show help]' '1:glob: ' ;;
        find) _arguments -S '--json[print the matches as JSON]' '--compact[print the JSON on one line]' '(-0 --null)'{-0,--null}'[end each match with NUL]' '--help[show help]' '1:word:' ;;
        lint) _arguments -S '--help[show help]' '*:file:_files' ;;
        export)
            _arguments -S '--format[output format]:format:(xml binary openstep json typed-json sh env github)' \
                '*--keys[only these keys]:keys:->keys' \
                '--effective[export what an application sees]' \
                '--lossy[with JSON, write dates and data as strings]' '--compact[write JSON on one line]' \
                '*--defaults[registered defaults for this run]:defaults file:_files' '--help[show help]' \
                '1:domain:_prefs_suites' '2:output path:_files' && return
            [[ $state == keys ]] && _sequence _prefs_key_list "$operands[1]" ;;
        import)
            _arguments -S '(--if-absent)--replace[make the suite exactly the document]' \
                '(--replace)--if-absent[keep the keys already stored]' \
                '--format[read the document as]:format:(xml binary openstep json typed-json)' \
                '--dry-run[print what would change]' '--exit-code[exit 3 when something changed]' \
                '(--no-schema)--schema[check against this schema file]:schema file:_files' \
                '(--schema)--no-schema[store without checking the schema]' '--help[show help]' \
                '1:domain:_prefs_suites' '2:document:_files' ;;
        migrate)
            _arguments -S '--from[what SOURCE is]:kind:(file ini env suite)' \
                '*--keys[only these keys]:keys:->keys' \
                '*--bool-keys[make these keys booleans]:keys:->keys' \
                '*--rename[store the key OLD as NEW]:OLD=NEW: ' \
                '--infer-types[strings that spell numbers or true/false become typed]' \
                '--decode-json-strings[strings that are a JSON object or array become that value]' \
                '--overwrite[replace stored values that differ]' \
                '--skip-errors[leave out the keys that fail]' \
                '--dry-run[print the report and change nothing]' '--exit-code[exit 3 when something changed]' \
                '(--no-schema)--schema[check against this schema file]:schema file:_files' \
                '(--schema)--no-schema[store without checking the schema]' '--help[show help]' \
                '1:domain:_prefs_suites' '2:source:_prefs_suites_and_files' && return
            [[ $state == keys ]] && _sequence _prefs_key_list "$operands[2]" ;;
        watch)
            _arguments -S '--json[print each change as a JSON object on one line]' '--compact[the same as --json]' \
                '--exec[run COMMAND after each change instead of printing it]:command: ' \
                '--initial[print the current values first]' \
                '--once[exit after the first change]' \
                '--timeout[stop after SECONDS (with --once: exit 1 if no change came)]:seconds: ' '--help[show help]' \
                '1:domain:_prefs_suites_and_files' '*:key:->key' && return
            [[ $state == key ]] && _prefs_keys "$operands[1]" ;;
        exec)
            # DOMAINs, then after -- a COMMAND and its arguments, completed as on a command line of their own.
            if [[ -n $dashdash ]]; then
                words=("${(@)words[dashdash,-1]}")
                (( CURRENT -= dashdash - 1 ))
                _normal
            else
                _arguments -S '--keys[only these top-level keys]:keys: ' '--help[show help]' '*:domain:_prefs_suites_and_files'
            fi ;;
        edit) _arguments -S '--help[show help]' '1:domain:_prefs_suites_and_files' ;;
        dump) _arguments -S '--registered[include the user'\''s registered defaults]' '--help[show help]' '1:file (- for standard output):_files' ;;
        load)
            _arguments -S '--dry-run[print the report and change nothing]' '--exit-code[exit 3 when something changed]' \
                '--no-schema[restore the values without checking them against the schemas]' '--help[show help]' \
                '1:dump (- for standard input):_files' ;;
        describe)
            _arguments -S '--schema[describe this schema file]:schema file:_files' \
                '--choices[print only the values KEY may take]' '--null[with --choices, end each value with NUL]' '--help[show help]' \
                '1:domain:_prefs_suites' '2:key:->key' && return
            [[ $state == key ]] && _prefs_keys "$operands[1]" ;;
        check) _arguments -S '--schema[check against this schema file]:schema file:_files' '--help[show help]' '*:suite:_prefs_suites' ;;
        gc)
            _arguments -S '--grace[only blobs older than SECONDS]:seconds: ' \
                '--dry-run[print what would be removed]' '--exit-code[exit 3 when something was removed]' '--help[show help]' \
                '*:suite:_prefs_suites' ;;
        help)
            if [[ $PREFIX == -* ]]; then
                compadd -- --help
            elif (( CURRENT == 2 )); then
                _describe -t verbs 'verb' verbs
            fi ;;
    esac
}

_prefs "$@"
