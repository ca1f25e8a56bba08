/**
 * Emoji names an award may take (GitLab validates them against TanukiEmoji's alpha codes, gemojione's names): a
 * compact list of the common ones, each with its character, and the aliases GitLab normalizes (`+1` is `thumbsup`).
 * A name is given without colons; `:smile:` is read as `smile`.
 */

const LIST = `
thumbsup 👍|thumbsdown 👎|ok_hand 👌|punch 👊|fist ✊|v ✌️|wave 👋|raised_hand ✋|open_hands 👐|muscle 💪|pray 🙏|point_up ☝️
point_up_2 👆|point_down 👇|point_left 👈|point_right 👉|middle_finger 🖕|hand_splayed 🖐️|metal 🤘|vulcan 🖖|writing_hand ✍️
nail_care 💅|clap 👏|raised_hands 🙌|handshake 🤝|fingers_crossed 🤞|call_me 🤙|left_facing_fist 🤛|right_facing_fist 🤜
raised_back_of_hand 🤚|pinching_hand 🤏|eyes 👀|eye 👁️|ear 👂|nose 👃|tongue 👅|lips 👄|kiss 💋|brain 🧠|footprints 👣
grinning 😀|grin 😁|joy 😂|rofl 🤣|smiley 😃|smile 😄|sweat_smile 😅|laughing 😆|wink 😉|blush 😊|yum 😋|sunglasses 😎
heart_eyes 😍|kissing_heart 😘|kissing 😗|kissing_smiling_eyes 😙|kissing_closed_eyes 😚|relaxed ☺️|slight_smile 🙂
hugging 🤗|thinking 🤔|neutral_face 😐|expressionless 😑|no_mouth 😶|rolling_eyes 🙄|smirk 😏|persevere 😣
disappointed_relieved 😥|open_mouth 😮|zipper_mouth 🤐|hushed 😯|sleepy 😪|tired_face 😫|sleeping 😴|relieved 😌|nerd 🤓
stuck_out_tongue 😛|stuck_out_tongue_winking_eye 😜|stuck_out_tongue_closed_eyes 😝|drooling_face 🤤|unamused 😒|sweat 😓
pensive 😔|confused 😕|upside_down 🙃|money_mouth 🤑|astonished 😲|frowning2 ☹️|slight_frown 🙁|confounded 😖
disappointed 😞|worried 😟|triumph 😤|cry 😢|sob 😭|frowning 😦|anguished 😧|fearful 😨|weary 😩|grimacing 😬|cold_sweat 😰
scream 😱|flushed 😳|dizzy_face 😵|rage 😡|angry 😠|innocent 😇|cowboy 🤠|clown 🤡|lying_face 🤥|mask 😷
thermometer_face 🤒|head_bandage 🤕|nauseated_face 🤢|sneezing_face 🤧|star_struck 🤩|exploding_head 🤯|partying_face 🥳
pleading_face 🥺|face_with_monocle 🧐|shushing_face 🤫|zany_face 🤪|yawning_face 🥱|hot_face 🥵|cold_face 🥶
smiling_imp 😈|imp 👿|japanese_ogre 👹|japanese_goblin 👺|skull 💀|ghost 👻|alien 👽|space_invader 👾|robot 🤖|poop 💩
smiley_cat 😺|smile_cat 😸|joy_cat 😹|heart_eyes_cat 😻|smirk_cat 😼|kissing_cat 😽|scream_cat 🙀|crying_cat_face 😿
pouting_cat 😾|see_no_evil 🙈|hear_no_evil 🙉|speak_no_evil 🙊|baby 👶|boy 👦|girl 👧|man 👨|woman 👩|older_man 👴
older_woman 👵|cop 👮|guardsman 💂|spy 🕵️|santa 🎅|angel 👼|princess 👸|ninja 🥷|detective 🕵️|dancer 💃|man_dancing 🕺
runner 🏃|walking 🚶|bust_in_silhouette 👤|busts_in_silhouette 👥|speaking_head 🗣️|family 👪|couple 👫
dog 🐶|cat 🐱|mouse 🐭|hamster 🐹|rabbit 🐰|fox 🦊|bear 🐻|panda_face 🐼|koala 🐨|tiger 🐯|lion_face 🦁|cow 🐮|pig 🐷
pig_nose 🐽|frog 🐸|monkey_face 🐵|monkey 🐒|chicken 🐔|penguin 🐧|bird 🐦|baby_chick 🐤|hatching_chick 🐣|duck 🦆
eagle 🦅|owl 🦉|bat 🦇|wolf 🐺|boar 🐗|horse 🐴|unicorn 🦄|bee 🐝|bug 🐛|butterfly 🦋|snail 🐌|shell 🐚|beetle 🐞|ant 🐜
spider 🕷️|spider_web 🕸️|scorpion 🦂|crab 🦀|snake 🐍|lizard 🦎|turtle 🐢|octopus 🐙|squid 🦑|shrimp 🦐|tropical_fish 🐠
fish 🐟|blowfish 🐡|dolphin 🐬|shark 🦈|whale 🐳|whale2 🐋|crocodile 🐊|leopard 🐆|tiger2 🐅|water_buffalo 🐃|ox 🐂
cow2 🐄|deer 🦌|dromedary_camel 🐪|camel 🐫|elephant 🐘|rhino 🦏|gorilla 🦍|racehorse 🐎|pig2 🐖|goat 🐐|ram 🐏
sheep 🐑|dog2 🐕|poodle 🐩|cat2 🐈|rooster 🐓|turkey 🦃|dove 🕊️|rabbit2 🐇|mouse2 🐁|rat 🐀|chipmunk 🐿️|feet 🐾
dragon 🐉|dragon_face 🐲|sloth 🦥|otter 🦦|llama 🦙|hedgehog 🦔|kangaroo 🦘|parrot 🦜|peacock 🦚|flamingo 🦩|sauropod 🦕
t_rex 🦖|cactus 🌵|christmas_tree 🎄|evergreen_tree 🌲|deciduous_tree 🌳|palm_tree 🌴|seedling 🌱|herb 🌿|shamrock ☘️
four_leaf_clover 🍀|bamboo 🎍|tanabata_tree 🎋|leaves 🍃|fallen_leaf 🍂|maple_leaf 🍁|mushroom 🍄|ear_of_rice 🌾
bouquet 💐|tulip 🌷|rose 🌹|wilted_rose 🥀|sunflower 🌻|blossom 🌼|cherry_blossom 🌸|hibiscus 🌺|earth_americas 🌎
earth_africa 🌍|earth_asia 🌏|full_moon 🌕|new_moon 🌑|crescent_moon 🌙|sun_with_face 🌞|sunny ☀️|star ⭐|star2 🌟
dizzy 💫|sparkles ✨|zap ⚡|fire 🔥|boom 💥|comet ☄️|snowflake ❄️|snowman ⛄|cloud ☁️|umbrella ☔|rainbow 🌈|ocean 🌊
droplet 💧|apple 🍎|green_apple 🍏|pear 🍐|tangerine 🍊|lemon 🍋|banana 🍌|watermelon 🍉|grapes 🍇|strawberry 🍓|melon 🍈
cherries 🍒|peach 🍑|pineapple 🍍|kiwi 🥝|avocado 🥑|tomato 🍅|eggplant 🍆|cucumber 🥒|carrot 🥕|corn 🌽|hot_pepper 🌶️
potato 🥔|bread 🍞|croissant 🥐|cheese 🧀|egg 🥚|cooking 🍳|bacon 🥓|pancakes 🥞|hamburger 🍔|fries 🍟|hotdog 🌭
pizza 🍕|spaghetti 🍝|taco 🌮|burrito 🌯|ramen 🍜|stew 🍲|sushi 🍣|bento 🍱|curry 🍛|rice 🍚|rice_ball 🍙|icecream 🍦
shaved_ice 🍧|ice_cream 🍨|cake 🍰|birthday 🎂|cookie 🍪|chocolate_bar 🍫|candy 🍬|lollipop 🍭|doughnut 🍩|popcorn 🍿
coffee ☕|tea 🍵|beer 🍺|beers 🍻|wine_glass 🍷|cocktail 🍸|tropical_drink 🍹|champagne 🍾|milk 🥛|soccer ⚽
basketball 🏀|football 🏈|baseball ⚾|tennis 🎾|volleyball 🏐|rugby_football 🏉|8ball 🎱|golf ⛳|ping_pong 🏓
badminton 🏸|hockey 🏒|ski 🎿|trophy 🏆|medal 🏅|first_place 🥇|second_place 🥈|third_place 🥉|military_medal 🎖️
dart 🎯|bowling 🎳|video_game 🎮|game_die 🎲|jigsaw 🧩|chess_pawn ♟️|musical_note 🎵|notes 🎶|microphone 🎤
headphones 🎧|guitar 🎸|trumpet 🎺|violin 🎻|drum 🥁|saxophone 🎷|musical_keyboard 🎹|art 🎨|performing_arts 🎭
ticket 🎫|clapper 🎬|car 🚗|red_car 🚗|taxi 🚕|blue_car 🚙|bus 🚌|trolleybus 🚎|race_car 🏎️|police_car 🚓|ambulance 🚑
fire_engine 🚒|minibus 🚐|truck 🚚|articulated_lorry 🚛|tractor 🚜|bike 🚲|motorcycle 🏍️|scooter 🛴|airplane ✈️
rocket 🚀|helicopter 🚁|ship 🚢|boat ⛵|speedboat 🚤|anchor ⚓|construction 🚧|fuelpump ⛽|rotating_light 🚨
traffic_light 🚥|vertical_traffic_light 🚦|train 🚋|steam_locomotive 🚂|bullettrain_side 🚄|station 🚉|house 🏠
house_with_garden 🏡|office 🏢|hospital 🏥|school 🏫|factory 🏭|castle 🏰|tent ⛺|statue_of_liberty 🗽|moyai 🗿
watch ⌚|iphone 📱|computer 💻|keyboard ⌨️|desktop 🖥️|printer 🖨️|mouse_three_button 🖱️|floppy_disk 💾|cd 💿|dvd 📀
telephone ☎️|phone ☎️|tv 📺|radio 📻|camera 📷|video_camera 📹|movie_camera 🎥|satellite 📡|bulb 💡|flashlight 🔦
battery 🔋|electric_plug 🔌|moneybag 💰|dollar 💵|euro 💶|yen 💴|pound 💷|credit_card 💳|gem 💎|scales ⚖️|wrench 🔧
hammer 🔨|hammer_pick ⚒️|tools 🛠️|pick ⛏️|nut_and_bolt 🔩|gear ⚙️|chains ⛓️|gun 🔫|bomb 💣|knife 🔪|dagger 🗡️|crossed_swords ⚔️
shield 🛡️|smoking 🚬|coffin ⚰️|crystal_ball 🔮|prayer_beads 📿|barber 💈|alembic ⚗️|telescope 🔭|microscope 🔬|hole 🕳️
pill 💊|syringe 💉|dna 🧬|thermometer 🌡️|key 🔑|key2 🗝️|lock 🔒|unlock 🔓|closed_lock_with_key 🔐|lock_with_ink_pen 🔏
door 🚪|bed 🛏️|couch 🛋️|toilet 🚽|shower 🚿|bathtub 🛁|bell 🔔|no_bell 🔕|bookmark 🔖|link 🔗|paperclip 📎|paperclips 🖇️
scissors ✂️|pencil ✏️|pencil2 ✏️|pen_ballpoint 🖊️|black_nib ✒️|memo 📝|book 📖|books 📚|notebook 📓|ledger 📒
closed_book 📕|green_book 📗|blue_book 📘|orange_book 📙|newspaper 📰|calendar 📆|date 📅|spiral_calendar_pad 🗓️
chart_with_upwards_trend 📈|chart_with_downwards_trend 📉|bar_chart 📊|clipboard 📋|pushpin 📌|round_pushpin 📍
triangular_ruler 📐|straight_ruler 📏|file_folder 📁|open_file_folder 📂|card_index 📇|wastebasket 🗑️|package 📦
mailbox 📫|mailbox_with_mail 📬|postbox 📮|envelope ✉️|email 📧|incoming_envelope 📨|inbox_tray 📥|outbox_tray 📤
label 🏷️|mag 🔍|mag_right 🔎|gift 🎁|balloon 🎈|tada 🎉|confetti_ball 🎊|ribbon 🎀|crown 👑|tophat 🎩|mortar_board 🎓
eyeglasses 👓|dark_sunglasses 🕶️|necktie 👔|shirt 👕|jeans 👖|dress 👗|kimono 👘|bikini 👙|purse 👛|handbag 👜|briefcase 💼
school_satchel 🎒|shoe 👞|athletic_shoe 👟|high_heel 👠|boot 👢|lipstick 💄|ring 💍|umbrella2 ☂️|heart ❤️|orange_heart 🧡
yellow_heart 💛|green_heart 💚|blue_heart 💙|purple_heart 💜|black_heart 🖤|white_heart 🤍|brown_heart 🤎|broken_heart 💔
heart_exclamation ❣️|two_hearts 💕|revolving_hearts 💞|heartbeat 💓|heartpulse 💗|sparkling_heart 💖|cupid 💘|gift_heart 💝
heart_decoration 💟|peace ☮️|cross ✝️|star_and_crescent ☪️|om_symbol 🕉️|wheel_of_dharma ☸️|star_of_david ✡️|yin_yang ☯️
atom ⚛️|radioactive ☢️|biohazard ☣️|no_entry ⛔|no_entry_sign 🚫|stop_sign 🛑|x ❌|o ⭕|heavy_check_mark ✔️
white_check_mark ✅|ballot_box_with_check ☑️|heavy_multiplication_x ✖️|heavy_plus_sign ➕|heavy_minus_sign ➖
heavy_division_sign ➗|question ❓|grey_question ❔|exclamation ❗|grey_exclamation ❕|bangbang ‼️|interrobang ⁉️|warning ⚠️
recycle ♻️|beginner 🔰|trident 🔱|infinity ♾️|copyright ©️|registered ®️|tm ™️|100 💯|1234 🔢|arrow_up ⬆️|arrow_down ⬇️
arrow_left ⬅️|arrow_right ➡️|arrow_upper_right ↗️|arrow_lower_right ↘️|arrow_lower_left ↙️|arrow_upper_left ↖️
arrows_counterclockwise 🔄|arrows_clockwise 🔃|repeat 🔁|twisted_rightwards_arrows 🔀|fast_forward ⏩|rewind ⏪
arrow_forward ▶️|arrow_backward ◀️|pause_button ⏸️|stop_button ⏹️|record_button ⏺️|eject ⏏️|new 🆕|free 🆓|up 🆙
cool 🆒|ok 🆗|sos 🆘|top 🔝|soon 🔜|back 🔙|end 🔚|on 🔛|zzz 💤|speech_balloon 💬|thought_balloon 💭|anger 💢
sweat_drops 💦|dash 💨|hourglass ⌛|hourglass_flowing_sand ⏳|alarm_clock ⏰|stopwatch ⏱️|timer ⏲️|clock1 🕐|clock2 🕑
clock3 🕒|clock4 🕓|clock5 🕔|clock6 🕕|clock7 🕖|clock8 🕗|clock9 🕘|clock10 🕙|clock11 🕚|clock12 🕛|flag_white 🏳️
flag_black 🏴|checkered_flag 🏁|triangular_flag_on_post 🚩|rainbow_flag 🏳️‍🌈|red_circle 🔴|large_blue_circle 🔵
white_circle ⚪|black_circle ⚫|large_orange_diamond 🔶|large_blue_diamond 🔷|small_orange_diamond 🔸|small_blue_diamond 🔹
white_large_square ⬜|black_large_square ⬛|zero 0️⃣|one 1️⃣|two 2️⃣|three 3️⃣|four 4️⃣|five 5️⃣|six 6️⃣|seven 7️⃣|eight 8️⃣
nine 9️⃣|keycap_ten 🔟|hash #️⃣|asterisk *️⃣|information_source ℹ️|abc 🔤|abcd 🔡|capital_abcd 🔠|symbols 🔣|a 🅰️|b 🅱️
ab 🆎|cl 🆑|vs 🆚|id 🆔|accept 🉑|mega 📣|loudspeaker 📢|speaker 🔈|mute 🔇|sound 🔉|loud_sound 🔊|chart 💹
`;

/** TanukiEmoji's aliases of common names, by the alias. */
const ALIASES: Readonly<Record<string, string>> = {
  '+1': 'thumbsup',
  '-1': 'thumbsdown',
  satisfied: 'laughing',
  hankey: 'poop',
  poo: 'poop',
  shit: 'poop',
  slightly_smiling_face: 'slight_smile',
  slightly_frowning_face: 'slight_frown',
  upside_down_face: 'upside_down',
  thinking_face: 'thinking',
  nerd_face: 'nerd',
  robot_face: 'robot',
  hugging_face: 'hugging',
  hand: 'raised_hand',
  lion: 'lion_face',
  facepunch: 'punch',
  rolling_on_the_floor_laughing: 'rofl',
  face_with_rolling_eyes: 'rolling_eyes',
  running: 'runner',
};

/** Each name's character. */
export const EMOJI: ReadonlyMap<string, string> = new Map(
  LIST.split(/[|\n]/)
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const space = entry.indexOf(' ');
      return [entry.slice(0, space), entry.slice(space + 1)] as const;
    }),
);

/** AwardEmojis::BaseService#normalize_name: the name an alias stands for, colons dropped; anything else as given. */
export function normalizeName(name: string): string {
  const bare = /^:[^:\s]+:$/.test(name) ? name.slice(1, -1) : name;
  const canonical = ALIASES[bare];
  return canonical && EMOJI.has(canonical) ? canonical : bare;
}

/** Whether the name is an emoji's (Gitlab::EmojiNameValidator). */
export const isEmojiName = (name: string): boolean => EMOJI.has(name);

/** The character's code points in hex, joined by `-` (TanukiEmoji's `hex`, GraphQL's `unicode`). */
export function unicodeOf(name: string): string | null {
  const char = EMOJI.get(name);
  if (!char) return null;
  return [...char].map((c) => c.codePointAt(0)!.toString(16)).join('-');
}
