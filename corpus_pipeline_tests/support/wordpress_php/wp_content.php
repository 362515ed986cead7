<?php
// Inserts documents (and images) into an installed WordPress and writes their permalinks and rendered content.
// argv: spec.json, result.json. Run with php-cli from the site root (corpus_pipeline_tests/support/wordpress.py).
// spec.json: {"images": {key: {file, title, alt, caption, date, date_folder}},
//             "documents": [{key, type (post|page), title, slug, date, content, and optionally excerpt, menu_order,
//                            categories, tags, featured (image key), comments, sticky, meta {name: value}}],
//             "menu": {"name": ..., "pages": [document keys]} (optional: a classic menu of pages)}
$_SERVER['HTTP_HOST'] = parse_url(getenv('WP_BENCH_BASE'), PHP_URL_HOST);
require getenv('WP_BENCH_ROOT') . '/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/image.php';
require_once ABSPATH . 'wp-admin/includes/taxonomy.php';
[$script, $spec_file, $result_file] = $argv;
$spec = json_decode(file_get_contents($spec_file), true, 512, JSON_THROW_ON_ERROR);
wp_set_current_user(1);
kses_remove_filters(); // the content is trusted: keep figures, tables and block comments as written

function bench_relative(string $url): string {
    return wp_make_link_relative($url);
}

// Images first: documents refer to them as %%URL:key%% (root-relative URL) and %%ID:key%% (attachment ID).
$images = [];
foreach ($spec['images'] ?? [] as $key => $image) {
    $bits = wp_upload_bits(basename($image['file']), null, file_get_contents($image['file']), $image['date_folder']);
    if (!empty($bits['error'])) {
        fwrite(STDERR, "upload $key: {$bits['error']}\n");
        exit(1);
    }
    $id = wp_insert_attachment([
        'post_mime_type' => 'image/png',
        'post_title' => $image['title'],
        'post_excerpt' => $image['caption'],
        'post_content' => '',
        'post_status' => 'inherit',
        'post_date' => $image['date'],
    ], $bits['file']);
    wp_update_attachment_metadata($id, wp_generate_attachment_metadata($id, $bits['file']));
    update_post_meta($id, '_wp_attachment_image_alt', $image['alt']);
    $images[$key] = ['id' => $id, 'url' => bench_relative($bits['url'])];
}

function bench_fill(string $text, array $images): string {
    return preg_replace_callback('/%%(URL|ID):([A-Za-z0-9_-]+)%%/', function ($m) use ($images) {
        return $m[1] === 'URL' ? $images[$m[2]]['url'] : (string) $images[$m[2]]['id'];
    }, $text);
}

$results = [];
foreach ($spec['documents'] as $doc) {
    $categories = [];
    foreach ($doc['categories'] ?? [] as $name) {
        $categories[] = (int) wp_create_category($name);
    }
    $id = wp_insert_post([
        'post_type' => $doc['type'],
        'post_title' => $doc['title'],
        'post_name' => $doc['slug'],
        'post_content' => bench_fill($doc['content'], $images),
        'post_excerpt' => $doc['excerpt'] ?? '',
        'post_status' => 'publish',
        'post_author' => 1,
        'post_date' => $doc['date'],
        'post_date_gmt' => $doc['date'],
        'menu_order' => $doc['menu_order'] ?? 0,
        'comment_status' => $doc['type'] === 'post' ? 'open' : 'closed',
        'post_category' => $doc['type'] === 'post' ? $categories : [],
    ], true);
    if (is_wp_error($id)) {
        fwrite(STDERR, "insert {$doc['slug']}: " . $id->get_error_message() . "\n");
        exit(1);
    }
    if ($doc['type'] === 'post' && !empty($doc['tags'])) {
        wp_set_post_terms($id, $doc['tags'], 'post_tag');
    }
    if (!empty($doc['featured'])) {
        set_post_thumbnail($id, $images[$doc['featured']]['id']);
    }
    if (!empty($doc['sticky'])) {
        stick_post($id);
    }
    foreach ($doc['meta'] ?? [] as $name => $value) {
        update_post_meta($id, $name, $value);
    }
    foreach ($doc['comments'] ?? [] as $i => $comment) {
        wp_insert_comment([
            'comment_post_ID' => $id,
            'comment_author' => $comment['author'],
            'comment_author_email' => strtolower(preg_replace('/\W+/', '.', $comment['author'])) . '@example.org',
            'comment_content' => $comment['text'],
            'comment_date' => $comment['date'],
            'comment_date_gmt' => $comment['date'],
            'comment_approved' => 1,
        ]);
    }
    $results[] = ['key' => $doc['key'], 'id' => $id];
}

// A classic menu of pages, which a classic theme shows once a theme location names it (wp_theme.php).
if (!empty($spec['menu'])) {
    $ids = array_column($results, 'id', 'key');
    $menu = wp_create_nav_menu($spec['menu']['name']);
    if (is_wp_error($menu)) {
        fwrite(STDERR, "menu: " . $menu->get_error_message() . "\n");
        exit(1);
    }
    foreach ($spec['menu']['pages'] as $position => $key) {
        wp_update_nav_menu_item($menu, 0, [
            'menu-item-object-id' => $ids[$key],
            'menu-item-object' => 'page',
            'menu-item-type' => 'post_type',
            'menu-item-status' => 'publish',
            'menu-item-position' => $position + 1,
        ]);
    }
}

// Rendered after every insert, as a visitor's request would: the_content with the global post set up.
$out = [];
foreach ($results as $row) {
    $post = get_post($row['id']);
    $GLOBALS['post'] = $post;
    setup_postdata($post);
    $out[] = [
        'key' => $row['key'],
        'path' => bench_relative(get_permalink($post)),
        'title' => get_the_title($post),
        'html' => apply_filters('the_content', get_the_content(null, false, $post)),
    ];
    wp_reset_postdata();
}
file_put_contents($result_file, json_encode($out, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE));
echo count($out) . " documents\n";
