<?php
// Activates an installed theme and sets its theme mods (run with php-cli from the site root).
// argv: theme (stylesheet), theme mods as a JSON object; its nav_menu_locations name menus ({"primary": "Main"}).
$_SERVER['HTTP_HOST'] = parse_url(getenv('WP_BENCH_BASE'), PHP_URL_HOST);
require getenv('WP_BENCH_ROOT') . '/wp-load.php';
[$script, $theme, $mods_json] = $argv;
$mods = json_decode($mods_json, true, 512, JSON_THROW_ON_ERROR);
switch_theme($theme);
if (get_stylesheet() !== $theme) {
    fwrite(STDERR, "theme $theme not activated\n");
    exit(1);
}
foreach ($mods as $name => $value) {
    if ($name === 'nav_menu_locations') {
        $value = array_map(function ($menu) {
            $found = wp_get_nav_menu_object($menu);
            if (!$found) {
                fwrite(STDERR, "no menu named $menu\n");
                exit(1);
            }
            return $found->term_id;
        }, $value);
    }
    set_theme_mod($name, $value);
}
echo "theme $theme\n";
