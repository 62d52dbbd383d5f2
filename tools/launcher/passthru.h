/* The subcommands that are gpuleak-report or gpuleak-plan underneath:
 * report and merge as they are; diff and html with the reporter's hint
 * about comparing processes said as the user types it here; plan told
 * where the launcher is. */
#ifndef GL_LAUNCHER_PASSTHRU_H
#define GL_LAUNCHER_PASSTHRU_H

int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_html(int argc, char **argv);
int cmd_plan(int argc, char **argv);

/* The reporter's line, with its hint about processes rewritten to name
 * `merge` and `html_merge` as typed here (a new string). */
char *hint_as_typed(const char *line, const char *merge, const char *html_merge);

#endif
