# gen_completions.cmake — write bash and zsh completion for the seektrace
# command from its own help texts, so that they cannot drift from the options
# the command accepts:
#
#   cmake -DSEEKTRACE=build/seektrace -DOUT_DIR=DIR -P gen_completions.cmake
#
# writes DIR/seektrace.bash and DIR/_seektrace. What is read, and how:
#   - subcommands: `seektrace --help`, each line "  NAME ..." (two spaces) of
#     it, with the text after the synopsis as its description;
#   - each subcommand's options: every --option its `seektrace NAME --help`
#     names (in an option line or in a description: run's --check lists
#     check's limits), except inside a quoted example of another command
#     ('seektrace run --trace DIR'); in an option line, "--long ARG, -s"
#     or "-s, --long ARG" makes -s an alias;
#   - an option's value: a list a|b|c anywhere beside it (after a space or
#     '=') gives its choices, else the word after it in its first mention:
#     DIR completes directories, FILE, PATH and GLOB files, any other
#     upper-case word a value with nothing to complete, none a flag;
#     "repeatable" in its description lets zsh offer it again;
#   - what follows the options: COMMAND in the usage line is a command line
#     (run, sweep), TRACE, DIR or JSON files, nothing else nothing.
# The top level offers the subcommands, --help, and --version when the
# command accepts it. tests/package/completion_test.py checks the result
# against the same help texts, through bash and zsh themselves.

cmake_minimum_required(VERSION 3.18)

if(NOT SEEKTRACE OR NOT OUT_DIR)
  message(FATAL_ERROR "usage: cmake -DSEEKTRACE=PATH -DOUT_DIR=DIR -P gen_completions.cmake")
endif()

function(st_help out)
  execute_process(COMMAND ${SEEKTRACE} ${ARGN} --help
                  OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${SEEKTRACE} ${ARGN} --help failed (${rc}): ${err}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Text for a single-quoted shell word, and for a zsh _arguments description
# (no brackets or colons, which _arguments would read as syntax).
function(st_quote out text)
  string(REPLACE "'" "'\\''" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
function(st_zsh_desc out text)
  string(REGEX REPLACE "(: |; | \\(|\\. ).*" "" text "${text}")
  string(REGEX REPLACE "[][:\\\\]" " " text "${text}")
  string(REGEX REPLACE "  +" " " text "${text}")
  string(STRIP "${text}" text)
  st_quote(text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# --- the top level -------------------------------------------------------------
st_help(top)
string(REPLACE ";" "," top "${top}")
# CMake keeps a list's ';' inside [ ] from splitting it: no brackets either.
string(REPLACE "[" "(" top "${top}")
string(REPLACE "]" ")" top "${top}")
string(REPLACE "\n" ";" top_lines "${top}")
set(subcommands "")
set(name "")
foreach(line IN LISTS top_lines)
  if(line MATCHES "^  ([a-z][a-z0-9-]*)(( [^ ]+)*)  +(.+)$")
    set(name ${CMAKE_MATCH_1})
    list(APPEND subcommands ${name})
    set(sub_desc_${name} "${CMAKE_MATCH_4}")
  elseif(name AND line MATCHES "^      +(.+)$")
    string(APPEND sub_desc_${name} " ${CMAKE_MATCH_1}")
  else()
    set(name "")
  endif()
endforeach()
if(NOT subcommands)
  message(FATAL_ERROR "no subcommands found in `${SEEKTRACE} --help`")
endif()
set(top_options --help)
execute_process(COMMAND ${SEEKTRACE} --version RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(rc EQUAL 0)
  list(APPEND top_options --version)
endif()

# --- each subcommand's options -------------------------------------------------
# Sets, for subcommand SUB: opts_SUB (names, aliases included), and for each
# option O: kind_SUB_O (flag, dir, file, arg or choices), choices_SUB_O,
# desc_SUB_O, rep_SUB_O, group_SUB_O (the option and its aliases); pos_SUB.
macro(st_parse sub)
  st_help(help ${sub})
  # Lists are ';'-separated in CMake: keep the text's own ';' out of the way.
  # CMake keeps a list's ';' inside [ ] from splitting it: no brackets either.
  string(REPLACE ";" "," help "${help}")
  string(REPLACE "[" "(" help "${help}")
  string(REPLACE "]" ")" help "${help}")
  string(REGEX REPLACE "'seektrace[^']*'" "''" help "${help}")
  set(opts_${sub} "")
  string(REGEX MATCHALL "(^|[^a-zA-Z0-9_-])--[a-z][a-z0-9-]*([ =][A-Z]+(,[A-Z]+)*|[ =][a-z0-9]+(\\|[a-z0-9]+)+)?"
         mentions "${help}")
  foreach(m IN LISTS mentions)
    string(REGEX MATCH "--[a-z][a-z0-9-]*" opt "${m}")
    if(NOT opt IN_LIST opts_${sub})
      list(APPEND opts_${sub} ${opt})
      set(kind_${sub}_${opt} flag)
      set(group_${sub}_${opt} ${opt})
    endif()
    if(m MATCHES "[ =]([a-z0-9]+(\\|[a-z0-9]+)+)$")
      string(REPLACE "|" ";" choices_${sub}_${opt} "${CMAKE_MATCH_1}")
      set(kind_${sub}_${opt} choices)
    elseif(m MATCHES "[ =]([A-Z]+(,[A-Z]+)*)$" AND kind_${sub}_${opt} STREQUAL "flag")
      set(meta ${CMAKE_MATCH_1})
      if(meta STREQUAL "DIR")
        set(kind_${sub}_${opt} dir)
      elseif(meta MATCHES "^(FILE|PATH|GLOB)$")
        set(kind_${sub}_${opt} file)
      else()
        set(kind_${sub}_${opt} arg)
      endif()
    endif()
  endforeach()
  string(REPLACE "\n" ";" lines "${help}")
  set(opt "")
  set(aliases_${sub} "")
  foreach(line IN LISTS lines)
    # An option line: "  --long [ARG][, -s]  description" (the synopsis
    # ends at two spaces), and the lines indented further below it.
    if(opt AND line MATCHES "^      +([^ ].*)$")
      string(APPEND desc_${sub}_${opt} " ${CMAKE_MATCH_1}")
      continue()
    endif()
    set(opt "")
    if(line MATCHES "^  (-[^ ]*( [^ ]+)*)  +(.+)$")
      set(synopsis "${CMAKE_MATCH_1}")
      set(d "${CMAKE_MATCH_3}")
      if(synopsis MATCHES "(--[a-z][a-z0-9-]*)")
        set(opt ${CMAKE_MATCH_1})
        set(desc_${sub}_${opt} "${d}")
        # "--long ARG, -s" or "-s, --long ARG": -s is an alias.
        string(REGEX MATCHALL "(^|[ ,])-[a-zA-Z](,| |$)" shorts "${synopsis}")
        foreach(short IN LISTS shorts)
          string(REGEX MATCH "-[a-zA-Z]" short "${short}")
          list(APPEND aliases_${sub} ${opt} ${short})
        endforeach()
      endif()
    endif()
  endforeach()
  set(pairs ${aliases_${sub}})
  while(pairs)
    list(POP_FRONT pairs opt short)
    list(APPEND opts_${sub} ${short})
    set(group_${sub}_${opt} ${opt} ${short})
    set(group_${sub}_${short} ${opt} ${short})
    foreach(p kind choices desc)
      set(${p}_${sub}_${short} "${${p}_${sub}_${opt}}")
    endforeach()
  endwhile()
  string(REGEX MATCH "usage: [^\n]*" usage "${help}")
  if(usage MATCHES "COMMAND")
    set(pos_${sub} command)
  elseif(usage MATCHES "TRACE|DIR|JSON")
    set(pos_${sub} file)
  else()
    set(pos_${sub} none)
  endif()
endmacro()

foreach(sub IN LISTS subcommands)
  st_parse(${sub})
endforeach()
# An option a help text only names (run's check limits): its description
# where another subcommand has one.
foreach(sub IN LISTS subcommands)
  foreach(opt IN LISTS opts_${sub})
    foreach(other IN LISTS subcommands)
      if(NOT desc_${sub}_${opt} AND desc_${other}_${opt})
        set(desc_${sub}_${opt} "${desc_${other}_${opt}}")
      endif()
    endforeach()
    set(rep_${sub}_${opt} "")
    if("${desc_${sub}_${opt}}" MATCHES "repeatable")
      set(rep_${sub}_${opt} "*")
    endif()
  endforeach()
endforeach()

# --- bash ----------------------------------------------------------------------
set(hdr "Generated by packaging/completion/gen_completions.cmake from the help texts of\n# `seektrace --help` and `seektrace COMMAND --help`; edit those, not this.")
list(JOIN subcommands " " subs_words)
list(JOIN top_options " " top_words)
set(opt_cases "")
set(val_cases "")
set(pos_cases "")
foreach(sub IN LISTS subcommands)
  list(JOIN opts_${sub} " " words)
  string(APPEND opt_cases "        ${sub}) echo '${words}' ;;\n")
  foreach(opt IN LISTS opts_${sub})
    set(k ${kind_${sub}_${opt}})
    if(k STREQUAL "choices")
      list(JOIN choices_${sub}_${opt} " " c)
      set(k "=${c}")
    endif()
    if(NOT k STREQUAL "flag")
      string(APPEND val_cases "        '${sub} ${opt}') echo '${k}' ;;\n")
    endif()
  endforeach()
  string(APPEND pos_cases "        ${sub}) echo ${pos_${sub}} ;;\n")
endforeach()

file(WRITE ${OUT_DIR}/seektrace.bash "# bash completion for seektrace(1).
# ${hdr}

# _seektrace_options SUB: the options of SUB ('' for the top level).
_seektrace_options() {
    case $1 in
${opt_cases}        '') echo '${top_words}' ;;
    esac
}

# _seektrace_value SUB OPTION: what OPTION's value is: nothing printed for a
# flag; dir, file or arg (nothing to complete); or '=' and its choices.
_seektrace_value() {
    case \"$1 $2\" in
${val_cases}    esac
}

# _seektrace_positional SUB: what follows SUB's options: command, file or none.
_seektrace_positional() {
    case $1 in
${pos_cases}    esac
}

# One candidate a line, so that file names may hold spaces.
_seektrace_compgen() {
    mapfile -t COMPREPLY < <(compgen \"$@\")
}

_seektrace() {
    local cur=\${COMP_WORDS[COMP_CWORD]} sub='' cmd=0 opt='' i w kind
    COMPREPLY=()
    # The subcommand is the first word that is not an option; then, in run and
    # sweep, the command line starts at '--' or at the first word that is
    # neither an option nor an option's value.
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=\${COMP_WORDS[i]}
        if [[ -z $sub ]]; then
            [[ $w == -* ]] || sub=$w
            continue
        fi
        if [[ $w == -- ]]; then
            cmd=$((i + 1)); break
        elif [[ $w == -* ]]; then
            [[ \${COMP_WORDS[i+1]} == = ]] && ((i++))
            [[ -n $(_seektrace_value \"$sub\" \"$w\") ]] && ((i++))
        elif [[ $(_seektrace_positional \"$sub\") == command ]]; then
            cmd=$i; break
        fi
    done
    if [[ -z $sub ]]; then
        if [[ $cur == -* ]]; then
            _seektrace_compgen -W \"$(_seektrace_options '')\" -- \"$cur\"
        else
            _seektrace_compgen -W '${subs_words}' -- \"$cur\"
        fi
        return
    fi
    if ((cmd)); then
        if ((COMP_CWORD == cmd)); then
            _seektrace_compgen -c -- \"$cur\"
        else
            compopt -o filenames 2>/dev/null
            _seektrace_compgen -f -- \"$cur\"
        fi
        return
    fi
    # An option's value: '--opt VALUE', '--opt=VALUE' (readline splits at '=').
    if [[ $cur == = ]]; then
        opt=\${COMP_WORDS[COMP_CWORD-1]} cur=''
    elif [[ \${COMP_WORDS[COMP_CWORD-1]} == = ]]; then
        opt=\${COMP_WORDS[COMP_CWORD-2]}
    else
        opt=\${COMP_WORDS[COMP_CWORD-1]}
    fi
    if [[ $opt == -* ]]; then
        kind=$(_seektrace_value \"$sub\" \"$opt\")
        case $kind in
            '') ;;
            dir) compopt -o filenames 2>/dev/null; _seektrace_compgen -d -- \"$cur\"; return ;;
            file) compopt -o filenames 2>/dev/null; _seektrace_compgen -f -- \"$cur\"; return ;;
            arg) return ;;
            =*) _seektrace_compgen -W \"\${kind#=}\" -- \"$cur\"; return ;;
        esac
    fi
    if [[ $cur == -* ]]; then
        _seektrace_compgen -W \"$(_seektrace_options \"$sub\")\" -- \"$cur\"
        return
    fi
    case $(_seektrace_positional \"$sub\") in
        command) _seektrace_compgen -c -- \"$cur\" ;;
        file) compopt -o filenames 2>/dev/null; _seektrace_compgen -f -- \"$cur\" ;;
    esac
}

complete -F _seektrace seektrace
")

# --- zsh -----------------------------------------------------------------------
set(sub_specs "")
foreach(sub IN LISTS subcommands)
  st_zsh_desc(d "${sub_desc_${sub}}")
  string(APPEND sub_specs "    '${sub}:${d}'\n")
endforeach()
set(top_specs "")
foreach(opt IN LISTS top_options)
  string(APPEND top_specs " '${opt}'")
endforeach()
set(cases "")
foreach(sub IN LISTS subcommands)
  string(APPEND cases "    ${sub})\n      _arguments -s -S :")
  foreach(opt IN LISTS opts_${sub})
    st_zsh_desc(d "${desc_${sub}_${opt}}")
    list(JOIN group_${sub}_${opt} " " excl)
    set(k ${kind_${sub}_${opt}})
    set(action "")
    if(k STREQUAL "dir")
      set(action ":directory:_files -/")
    elseif(k STREQUAL "file")
      set(action ":file:_files")
    elseif(k STREQUAL "arg")
      set(action ":value: ")
    elseif(k STREQUAL "choices")
      list(JOIN choices_${sub}_${opt} " " c)
      set(action ":value:(${c})")
    endif()
    if(rep_${sub}_${opt})
      string(APPEND cases " \\\n        '*${opt}[${d}]${action}'")
    else()
      string(APPEND cases " \\\n        '(${excl})${opt}[${d}]${action}'")
    endif()
  endforeach()
  if(pos_${sub} STREQUAL "command")
    string(APPEND cases " \\\n        '(-)1:command:_command_names -e' '*::arguments:_normal'")
  elseif(pos_${sub} STREQUAL "file")
    string(APPEND cases " \\\n        '*:trace, directory or JSON report:_files'")
  endif()
  string(APPEND cases " ;;\n")
endforeach()

file(WRITE ${OUT_DIR}/_seektrace "#compdef seektrace
# zsh completion for seektrace(1).
# ${hdr}

_seektrace() {
  local -a subcommands
  subcommands=(
${sub_specs}  )
  local i=2
  while (( i < CURRENT )) && [[ \${words[i]} == -* ]]; do (( i++ )); done
  if (( i >= CURRENT )); then
    if [[ \$PREFIX == -* ]]; then
      _arguments${top_specs}
    else
      _describe -t commands 'seektrace command' subcommands
    fi
    return
  fi
  local sub=\${words[i]}
  words=(\"\${(@)words[i,-1]}\")
  (( CURRENT -= i - 1 ))
  curcontext=\"\${curcontext%:*:*}:seektrace-\$sub:\"
  case \$sub in
${cases}  esac
}

_seektrace \"$@\"
")
