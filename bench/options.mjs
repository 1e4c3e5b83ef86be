// The command line of a bench: `--quick`, `--name VALUE` options, and `--only a,b` naming some of its parts.
// Read the same way by every bench that takes them, so a value is never read one way here and another there.

/** The bench's arguments (process.argv after the script), with readers for its options. */
export function benchOptions(args = process.argv.slice(2)) {
  const text = (name, fallback) => {
    const at = args.indexOf(name);
    return at >= 0 && args[at + 1] !== undefined ? args[at + 1] : fallback;
  };
  return {
    args,
    quick: args.includes('--quick'),
    /** The option's value as written, or `fallback`. */
    text,
    /** The option's value as a number, or `fallback`. */
    number: (name, fallback) => {
      const value = text(name);
      return value === undefined ? fallback : Number(value);
    },
    /**
     * The parts `--only` names (comma-separated, any case), all of `parts` without it; a name that is no part
     * ends the bench with exit 2, naming the parts.
     */
    only: (parts) => {
      const given = text('--only');
      if (given === undefined) return parts;
      const named = given.split(',').map((part) => part.trim().toLowerCase());
      if (named.length === 0 || named.some((part) => !parts.includes(part))) {
        console.error(`--only takes parts among ${parts.join(', ')}, separated by commas (such as --only ${parts[0]})`);
        process.exit(2);
      }
      return named;
    },
  };
}
