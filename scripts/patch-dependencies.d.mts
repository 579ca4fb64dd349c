// The types of patch-dependencies.mjs, which stays plain JavaScript: npm runs it on its own Node, which may be 20.
export declare const MARK: string;
export declare const IMAPFLOW_FILES: readonly string[];
/** The patched text, the same text when already patched, or undefined when it is not the text the patch expects. */
export declare function patchImapflow(text: string): string | undefined;
