<?php
// Installs WordPress non-interactively into the database wp-config.php names (run with php-cli from the site root).
// argv: title, theme (stylesheet), permalink structure.
define('WP_INSTALLING', true);
$_SERVER['HTTP_HOST'] = parse_url(getenv('WP_BENCH_BASE'), PHP_URL_HOST);
require getenv('WP_BENCH_ROOT') . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
[$script, $title, $theme, $permalinks] = $argv;
$result = wp_install($title, 'editor', 'editor@example.org', true, '', 'bench-' . bin2hex(random_bytes(8)));
if (is_wp_error($result)) {
    fwrite(STDERR, $result->get_error_message() . "\n");
    exit(1);
}
update_option('blogdescription', 'Notes, releases and guides');
update_option('permalink_structure', $permalinks);
update_option('posts_per_page', 10);
update_option('default_comment_status', 'open');
update_option('comment_moderation', 0);
update_option('timezone_string', 'UTC');
switch_theme($theme);
if (get_stylesheet() !== $theme) {
    fwrite(STDERR, "theme $theme not activated\n");
    exit(1);
}
// A fresh install has "Hello world!", "Sample Page" and a privacy draft: the documents loaded next are the site's only ones.
foreach (get_posts(['post_type' => ['post', 'page'], 'post_status' => 'any', 'numberposts' => -1]) as $post) {
    wp_delete_post($post->ID, true);
}
$GLOBALS['wp_rewrite']->init();
flush_rewrite_rules(false);
echo "installed\n";
