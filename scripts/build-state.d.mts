/** Declarations of scripts/build-state.mjs, for the tests that import it. */
export declare const root: string;
export declare const BUILD_INPUTS: readonly string[];
export type SourceState = Record<string, string>;
export declare function stampPath(projectRoot?: string): string;
export declare function sourceState(projectRoot?: string): SourceState;
export declare function readStamp(projectRoot?: string): SourceState | undefined;
export declare function writeStamp(state: SourceState, projectRoot?: string): void;
export declare function removeStamp(projectRoot?: string): void;
export declare function buildFreshness(projectRoot?: string): { fresh: true } | { fresh: false; reason: string };
