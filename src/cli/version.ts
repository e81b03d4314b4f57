/** The version rigging reports (`--version`, SARIF tool.driver.version). */
export const VERSION = "0.1.0";
