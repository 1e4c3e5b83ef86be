import { oneLine, tables, type ArgumentEntry } from './shell.js';
import { acceptedOptions, type CommandSpec, type OptionSpec, type ValueKind } from './tree.js';

/** A string in fish's single quotes, where only `\` and `'` are escaped. */
export function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * The fish completion script: `complete` lines for each command, guarded by `__core_at PATH`, which
 * walks the words typed so far as the bash and zsh scripts do (see shell.ts). Needs fish 3.1 or later
 * (`complete --force-files`).
 */
export function fishScript(root: CommandSpec, version: string): string {
  const { commands, values, arguments: args } = tables(root);
  const at = (command: CommandSpec) => fishQuote(`__core_at ${JSON.stringify(command.path.join(' '))}`);
  const caseKey = (path: string, word: string) => fishQuote(`${path}:${word}`);

  const subcommandKeys = commands.flatMap((command) => command.subcommands.map((sub) => caseKey(command.path.join(' '), sub.name)));
  const valueKeys = values.map((entry) => caseKey(entry.path, entry.option));

  const lines: string[] = [];
  for (const command of commands) {
    const header = `# core${command.path.map((word) => ` ${word}`).join('')}`;
    lines.push('', header);
    for (const sub of command.subcommands) {
      lines.push(`complete -c core -n ${at(command)} -a ${fishQuote(sub.name)} -d ${fishQuote(oneLine(sub.summary))}`);
    }
    for (const entry of args.filter((candidate) => candidate.path === command.path.join(' '))) {
      const line = argumentLine(entry, command.arguments[entry.index]!.description);
      if (line !== undefined) lines.push(line);
    }
    for (const option of acceptedOptions(command)) lines.push(optionLine(at(command), option));
  }

  return `# fish completion for core ${version}, generated from its commands by \`core completion fish\`.
#
# Load it in the current shell:
#   core completion fish | source
# or install it for every new shell:
#   core completion fish > ~/.config/fish/completions/core.fish
# Generate it again after upgrading core.

# Whether a word names a subcommand of the command at a path ('' is core itself).
function __core_subcommand --argument-names path word
    switch "$path:$word"
        case ${subcommandKeys.join(' ')}
            return 0
    end
    return 1
end

# Whether an option takes a value at the command at a path.
function __core_takes_value --argument-names path option
    switch "$path:$option"
        case ${valueKeys.join(' ')}
            return 0
    end
    return 1
end

# Where the words typed so far lead: the number of positional arguments among them, then the path
# of the command, its subcommand words (such as "reason update"), one a line.
function __core_walk
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path ''
    set -l skip 0
    set -l npos 0
    for token in $tokens
        if test $skip -eq 1
            set skip 0
            continue
        end
        switch $token
            case '--*=*'
            case '-?*'
                if __core_takes_value "$path" $token
                    set skip 1
                end
            case '*'
                if test $npos -eq 0; and __core_subcommand "$path" $token
                    if test -z "$path"
                        set path $token
                    else
                        set path "$path $token"
                    end
                else
                    set npos (math $npos + 1)
                end
        end
    end
    printf '%s\n' $npos "$path"
end

function __core_at --argument-names expected
    set -l walk (__core_walk)
    test "$walk[2]" = "$expected"
end

# At the command at a path, completing its positional argument at an index (0-based); with
# "variadic", at that index or a later one.
function __core_at_argument --argument-names expected index variadic
    set -l walk (__core_walk)
    test "$walk[2]" = "$expected"; or return 1
    if test "$variadic" = variadic
        test $walk[1] -ge $index
    else
        test $walk[1] -eq $index
    end
end

# Profile names, from the config file in use (the last --config FILE or --config=FILE typed, as
# core reads it): core prints them.
function __core_profiles
    set -l tokens (commandline -opc)
    set -l config
    set -l next 0
    for token in $tokens
        if test $next -eq 1
            set config --config $token
            set next 0
            continue
        end
        switch $token
            case --config
                set next 1
            case '--config=*'
                set config --config (string replace -- '--config=' '' $token)
        end
    end
    $tokens[1] $config completion __profiles 2>/dev/null
end

# The words given; once the value has a =, the word before it, = and the files that fit the rest
# (core test --reporter junit=report.xml).
function __core_words_then_file
    set -l value (string replace -r -- '^--[^=]*=' '' (commandline -ct))
    if string match -q -- '*=*' $value
        set -l parts (string split -m 1 -- = $value)
        for candidate in (__fish_complete_path $parts[2])
            printf '%s=%s\n' $parts[1] $candidate
        end
    else
        printf '%s\n' $argv
    end
end

# Files only where an option or an argument takes a path.
complete -c core -f
${lines.join('\n')}
`;
}

function optionLine(condition: string, option: OptionSpec): string {
  const parts = ['complete -c core -n', condition];
  if (option.short) parts.push('-s', option.short.slice(1));
  if (option.long) parts.push('-l', option.long.slice(2));
  const value = option.value;
  if (value !== undefined) {
    switch (value.kind) {
      case 'words':
        parts.push(
          '-x -a',
          fishQuote(value.thenFile ? `(__core_words_then_file ${value.words.map(fishQuote).join(' ')})` : value.words.join(' ')),
        );
        break;
      case 'file':
        parts.push('-r -F');
        break;
      case 'profile':
        parts.push('-x -a', fishQuote('(__core_profiles)'));
        break;
      case 'text':
        parts.push('-x');
        break;
    }
  }
  parts.push('-d', fishQuote(oneLine(option.description)));
  return parts.join(' ');
}

/** The completion of a positional argument, guarded by its command and position; none for free text. */
function argumentLine(entry: ArgumentEntry, description: string): string | undefined {
  const condition = fishQuote(`__core_at_argument ${JSON.stringify(entry.path)} ${entry.index}${entry.variadic ? ' variadic' : ''}`);
  const what = argumentValue(entry.value);
  return what === undefined ? undefined : `complete -c core -n ${condition} ${what} -d ${fishQuote(oneLine(description))}`;
}

function argumentValue(value: ValueKind): string | undefined {
  switch (value.kind) {
    case 'words':
      return `-a ${fishQuote(value.words.join(' '))}`;
    case 'file':
      return '-F';
    case 'profile':
      return `-a ${fishQuote('(__core_profiles)')}`;
    case 'text':
      return undefined;
  }
}
