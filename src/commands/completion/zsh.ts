import { oneLine, shQuote, tables } from './shell.js';
import { acceptedOptions, namesOf, type CommandSpec, type ValueKind } from './tree.js';

/**
 * The zsh completion script: the same walk as the bash one (see shell.ts), with each subcommand and
 * option shown beside its description. It works both from `fpath` (as `_core`, loaded by compinit)
 * and sourced (`source <(core completion zsh)` after compinit).
 */
export function zshScript(root: CommandSpec, version: string): string {
  const { commands, values, arguments: args } = tables(root);
  const described = (name: string, description: string) => shQuote(`${name.replace(/:/g, '\\:')}:${oneLine(description)}`);

  const subcommandCases = commands
    .filter((command) => command.subcommands.length > 0)
    .map(
      (command) =>
        `    ${shQuote(command.path.join(' '))}) reply=(${command.subcommands.map((sub) => described(sub.name, sub.summary)).join(' ')}) ;;`,
    );

  const optionCases = commands.map((command) => {
    const entries = acceptedOptions(command).flatMap((option) => namesOf(option).map((name) => described(name, option.description)));
    return `    ${shQuote(command.path.join(' '))}) reply=(${entries.join(' ')}) ;;`;
  });

  // A variadic argument takes its position and every later one: `'test:'*`, after the positions
  // before it, since case takes the first pattern that matches.
  const argumentCases = args.map((entry) => {
    const pattern = entry.variadic ? `${shQuote(`${entry.path}:`)}*` : shQuote(`${entry.path}:${entry.index}`);
    return `    ${pattern}) ${valueBody(entry.value)} ;;`;
  });

  const valueCases = values.map((entry) => `    ${shQuote(`${entry.path}:${entry.option}`)}) ${valueBody(entry.value)} ;;`);

  return `#compdef core
# zsh completion for core ${version}, generated from its commands by \`core completion zsh\`.
#
# Load it in the current shell (after compinit):
#   source <(core completion zsh)
# or install it for every new shell, in a folder of $fpath:
#   core completion zsh > "\${fpath[1]}/_core"
# Generate it again after upgrading core.

# Subcommands of a command, by its path ('' is core itself), as name:description.
__core_subcommands() {
  reply=()
  case "$1" in
${subcommandCases.join('\n')}
  esac
}

# The options a command accepts, its own and core's, as name:description.
__core_options() {
  reply=()
  case "$1" in
${optionCases.join('\n')}
  esac
}

# Whether a command takes a positional argument at a position (status 0), and how to complete it,
# as __core_value says.
__core_argument() {
  __core_kind=text
  __core_words=()
  case "$1:$2" in
${argumentCases.join('\n')}
    *) return 1 ;;
  esac
  return 0
}

# Whether an option takes a value (status 0) and how to complete it: __core_kind is words (the list
# in __core_words), words-file (one of __core_words, or one of them, = and a file), file, profile or
# text.
__core_value() {
  __core_kind=text
  __core_words=()
  case "$1:$2" in
${valueCases.join('\n')}
    *) return 1 ;;
  esac
  return 0
}

# Completes a value as __core_kind says: $1 is the config file typed with --config, if any; $2 the
# value typed so far.
__core_complete_value() {
  local -a config_args profiles
  case "$__core_kind" in
    words) compadd -a __core_words ;;
    words-file)
      if [[ "$2" == *=* ]]; then
        compset -P 1 '*='
        _files
      else
        compadd -a __core_words
      fi
      ;;
    file) _files ;;
    profile)
      [[ -n "$1" ]] && config_args=(--config "$1")
      profiles=(\${(f)"$(\${words[1]} $config_args completion __profiles 2>/dev/null)"})
      compadd -a profiles
      ;;
    *) _message 'value' ;;
  esac
}

_core() {
  local cur="\${words[CURRENT]}" cmdpath='' word pending='' config='' npos=0 i=2 names
  local -a reply candidates
  while (( i < CURRENT )); do
    word="\${words[i]}"
    case "$word" in
      --config=*) config="\${word#--config=}" ;;
      --*=*) ;;
      -?*)
        if __core_value "$cmdpath" "$word"; then
          if (( i + 1 >= CURRENT )); then
            pending="$word"
            break
          fi
          [[ "$word" == --config ]] && config="\${words[i+1]}"
          (( i++ ))
        fi
        ;;
      *)
        __core_subcommands "$cmdpath"
        names=" \${(j: :)\${(@)reply%%:*}} "
        if (( npos == 0 )) && [[ "$names" == *" $word "* ]]; then
          cmdpath="\${cmdpath:+$cmdpath }$word"
        else
          (( npos++ ))
        fi
        ;;
    esac
    (( i++ ))
  done

  if [[ -n "$pending" ]]; then
    __core_value "$cmdpath" "$pending"
    __core_complete_value "$config" "$cur"
    return
  fi

  # --option=value in one word: the option goes, up to its first =.
  if [[ "$cur" == --*=* ]]; then
    if __core_value "$cmdpath" "\${cur%%=*}"; then
      compset -P 1 '*='
      __core_complete_value "$config" "\${cur#*=}"
    fi
    return
  fi

  if [[ "$cur" == -* ]]; then
    __core_options "$cmdpath"
    candidates=("\${reply[@]}")
    _describe -t options 'option' candidates
    return
  fi

  if (( npos == 0 )); then
    __core_subcommands "$cmdpath"
    candidates=("\${reply[@]}")
    (( \${#candidates} )) && _describe -t commands 'command' candidates
  fi
  if __core_argument "$cmdpath" "$npos" && [[ "$__core_kind" != text ]]; then
    __core_complete_value "$config" "$cur"
  fi
  return 0
}

if [[ "\${zsh_eval_context[-1]}" == loadautofunc ]]; then
  _core "$@"
else
  compdef _core core
fi
`;
}

function valueBody(value: ValueKind): string {
  switch (value.kind) {
    case 'words':
      return `__core_kind=${value.thenFile ? 'words-file' : 'words'}; __core_words=(${value.words.map(shQuote).join(' ')})`;
    case 'file':
      return '__core_kind=file';
    case 'profile':
      return '__core_kind=profile';
    case 'text':
      return '__core_kind=text';
  }
}
